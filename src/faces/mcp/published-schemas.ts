import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { COMMANDS_BY_NAME } from "../../commands/registry.js";
import { toolJsonSchemas } from "../../commands/tool-schemas.js";
import type { ToolSpec } from "../../commands/tools.js";

type Schemas = ReturnType<typeof toolJsonSchemas>;

/** Written next to the bundle by the build (scripts/tool-schemas.ts), from the same table. */
export const BUILT_SCHEMAS_FILE = "tool-schemas.json";

let built: Record<string, Schemas> | null | undefined;

function builtSchemas(): Record<string, Schemas> | null {
  if (built !== undefined) return built;
  try {
    built = JSON.parse(
      readFileSync(join(dirname(fileURLToPath(import.meta.url)), BUILT_SCHEMAS_FILE), "utf8"),
    );
  } catch {
    built = null;
  }
  return built ?? null;
}

/**
 * The JSON Schemas a hand-kept tool publishes. Converting zod to JSON Schema is the costliest
 * step of a server's first `tools/list`, and its answer is fixed when the bundle is built, so
 * the build converts once and every start reads the result. Run from source (tests), convert.
 */
export function publishedSchemas(tool: ToolSpec): Schemas {
  return builtSchemas()?.[tool.name] ?? toolJsonSchemas(tool, COMMANDS_BY_NAME);
}
