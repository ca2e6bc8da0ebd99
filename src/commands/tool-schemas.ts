import { z } from "zod";
import { TOOL_SCHEMA_VERSION } from "../kernel/version.js";
import type { AnyCommand } from "./define.js";
import { isImpliedIntegerBound, portable } from "./schema-portable.js";
import type { ToolSpec } from "./tools.js";

/**
 * What a tool publishes: its zod schemas (which validate every call) and the compact JSON Schemas
 * that `tools/list` serves and the golden fixtures pin. Every byte here is paid for in the
 * context of every agent, on every session.
 */
/** Its `const` says everything; a description would be repeated in every tool of the catalog. */
export const SCHEMA_VERSION_FIELD = z.literal(TOOL_SCHEMA_VERSION);

export const RefusedEnvelope = z.object({
  refused: z.object({ policy: z.string(), reason: z.string(), next: z.string() }),
});

export const CliToolInput = z.strictObject({
  schema_version: SCHEMA_VERSION_FIELD,
  argv: z
    .array(z.string())
    .describe('the words after `cairn`, e.g. ["agent","list","--all"]; --json is implied'),
});

export const CliToolOutput = z.object({
  exit_code: z.number().int(),
  output: z.json().describe("the parsed JSON that `cairn <argv> --json` printed (null if none)"),
  stderr: z.string(),
});

/**
 * Input schema a tool publishes: its command's input plus the required `schema_version`.
 * Unknown fields are rejected: a misspelt argument must fail loudly, not be ignored.
 */
export function toolInputSchema(tool: ToolSpec, commands: ReadonlyMap<string, AnyCommand>): z.ZodObject {
  if ("cli" in tool.wraps) return CliToolInput;
  return z.strictObject({ ...commandOf(tool, commands).input.shape, schema_version: SCHEMA_VERSION_FIELD });
}

/** Output schema a tool publishes: its command's output, or a refusal (a normal result). */
export function toolOutputSchema(tool: ToolSpec, commands: ReadonlyMap<string, AnyCommand>): z.ZodType {
  if ("cli" in tool.wraps) return CliToolOutput;
  return z.union([commandOf(tool, commands).output, RefusedEnvelope]);
}

type JsonSchema = Record<string, unknown>;

/**
 * Drop what costs context and tells a model nothing: the dialect URI, closed-object markers on
 * outputs, the bounds zod gives every integer.
 */
function compact(node: unknown, io: "input" | "output"): unknown {
  if (Array.isArray(node)) return node.map((item) => compact(item, io));
  if (node === null || typeof node !== "object") return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node as JsonSchema)) {
    if (key === "$schema") continue;
    // Object keys are always strings in JSON; zod's records say so anyway.
    if (key === "propertyNames" && JSON.stringify(value) === '{"type":"string"}') continue;
    if (io === "output" && key === "additionalProperties" && value === false) continue;
    if (isImpliedIntegerBound(key, value)) continue;
    out[key] = compact(value, io);
  }
  return out;
}

export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return portable(
    compact(z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "any" }), io),
  ) as JsonSchema;
}

/** The JSON Schemas a tool publishes in `tools/list`, and that the golden fixtures pin. */
export function toolJsonSchemas(
  tool: ToolSpec,
  commands: ReadonlyMap<string, AnyCommand>,
): { input: JsonSchema; output: JsonSchema } {
  const input = jsonSchemaOf(toolInputSchema(tool, commands), "input");
  if ("cli" in tool.wraps) return { input, output: jsonSchemaOf(CliToolOutput, "output") };
  // Complete to full depth: the output schema serves the client (validation, rendering, typed
  // bindings) and is not handed to the model, so completeness costs no context.
  // Definitions (a recursive type) live at the root, where their `#/$defs/…` references point.
  const { $defs, ...ok } = jsonSchemaOf(commandOf(tool, commands).output, "output");
  const refused = jsonSchemaOf(RefusedEnvelope, "output");
  return { input, output: { type: "object", anyOf: [ok, refused], ...($defs ? { $defs } : {}) } };
}

export function commandOf(tool: ToolSpec, commands: ReadonlyMap<string, AnyCommand>): AnyCommand {
  if ("cli" in tool.wraps) throw new Error(`tool ${tool.name} wraps the CLI, not one command`);
  const command = commands.get(tool.wraps.command);
  if (!command) throw new Error(`tool ${tool.name} wraps unknown command ${tool.wraps.command}`);
  return command;
}

/**
 * Annotations derived from the wrapped command's declared effect, so they cannot drift from it:
 * the most it may do (a shortcut run may be destructive, though its guard checks per shortcut).
 */
export function toolAnnotations(tool: ToolSpec, commands: ReadonlyMap<string, AnyCommand>) {
  const command = "cli" in tool.wraps ? undefined : commandOf(tool, commands);
  const effect = command ? (command.effectAtMost ?? command.effect) : "destructive";
  return {
    readOnlyHint: effect === "read",
    destructiveHint: effect === "destructive",
    idempotentHint: tool.idempotent,
    openWorldHint: false,
  };
}
