/**
 * Part of `npm run build`: convert every hand-kept tool's schemas to JSON Schema once, into
 * dist/tool-schemas.json, which `cairn mcp` serves instead of converting at each start.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { COMMANDS_BY_NAME } from "../src/commands/registry.js";
import { toolJsonSchemas } from "../src/commands/tool-schemas.js";
import { TOOLS } from "../src/commands/tools.js";
import { BUILT_SCHEMAS_FILE } from "../src/faces/mcp/published-schemas.js";

const schemas = Object.fromEntries(TOOLS.map((tool) => [tool.name, toolJsonSchemas(tool, COMMANDS_BY_NAME)]));
writeFileSync(join(process.argv[2] ?? "dist", BUILT_SCHEMAS_FILE), JSON.stringify(schemas));
