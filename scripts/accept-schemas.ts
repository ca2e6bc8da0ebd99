/**
 * `npm run schemas:accept`: record the golden input schema of every new tool, and fold additive
 * changes into existing ones. A breaking change is refused: it needs a new schema version.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { COMMANDS_BY_NAME } from "../src/commands/registry.js";
import { breakingChanges } from "../src/commands/schema-compat.js";
import { toolJsonSchemas } from "../src/commands/tool-schemas.js";
import { TOOLS } from "../src/commands/tools.js";

const dir = join(process.cwd(), "test", "fixtures", "schemas");
mkdirSync(dir, { recursive: true });
let refused = 0;
for (const tool of TOOLS) {
  const path = join(dir, `${tool.name}.input.json`);
  const current = toolJsonSchemas(tool, COMMANDS_BY_NAME).input;
  if (existsSync(path)) {
    const golden = JSON.parse(readFileSync(path, "utf8"));
    // Unchanged: leave the file (and its formatting) alone.
    if (JSON.stringify(golden) === JSON.stringify(current)) continue;
    const problems = breakingChanges(tool.name, golden, current);
    if (problems.length > 0) {
      refused++;
      for (const problem of problems) process.stderr.write(`refused: ${problem}\n`);
      continue;
    }
  }
  writeFileSync(path, `${JSON.stringify(current, null, 2)}\n`);
  process.stdout.write(`accepted ${tool.name}\n`);
}
process.exitCode = refused > 0 ? 1 : 0;
