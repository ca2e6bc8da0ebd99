import { z } from "zod";
import { TOOL_SCHEMA_VERSION } from "../kernel/version.js";
import type { AnyCommand } from "./define.js";
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
  output: z.unknown().describe("the parsed JSON that `cairn <argv> --json` printed (null if none)"),
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

/**
 * A refusal as published in every output schema: an object carrying `refused`. Its inner shape
 * ({policy, reason, next}) is taught once, in the server's instructions, rather than repeated in
 * every tool of the catalog, where every agent pays for each byte in its context.
 */
const REFUSAL_JSON = { required: ["refused"] };

type JsonSchema = Record<string, unknown>;

/** Drop what costs context and tells a model nothing: the dialect URI, closed-object markers on outputs. */
function compact(node: unknown, io: "input" | "output"): unknown {
  if (Array.isArray(node)) return node.map((item) => compact(item, io));
  if (node === null || typeof node !== "object") return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node as JsonSchema)) {
    if (key === "$schema") continue;
    // Object keys are always strings in JSON; zod's records say so anyway.
    if (key === "propertyNames" && JSON.stringify(value) === '{"type":"string"}') continue;
    if (io === "output" && key === "additionalProperties" && value === false) continue;
    out[key] = compact(value, io);
  }
  return out;
}

/**
 * Output schemas are published one level deep: the result's fields, each with its type (and its
 * values, for an enum). Still true of every result (zod validates the full shape before anything
 * is sent), and a fraction of the size: a task's criteria, a run's evaluators and the like are
 * read from the result itself, not learnt from a schema that every agent pays for on every
 * session.
 */
const OUTPUT_DEPTH = 1;

function summarize(node: unknown, depth: number): unknown {
  if (node === null || typeof node !== "object" || Array.isArray(node)) return node;
  const schema = node as JsonSchema;
  if (depth >= OUTPUT_DEPTH) {
    const kept: JsonSchema = {};
    for (const key of ["type", "enum", "const"]) if (key in schema) kept[key] = schema[key];
    if ("anyOf" in schema) kept.anyOf = (schema.anyOf as unknown[]).map((branch) => summarize(branch, depth));
    return kept;
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties") {
      out.properties = Object.fromEntries(
        Object.entries(value as JsonSchema).map(([field, sub]) => [field, summarize(sub, depth + 1)]),
      );
    } else if (key === "items" || key === "additionalProperties") {
      out[key] = typeof value === "object" ? summarize(value, depth + 1) : value;
    } else if (key === "anyOf" || key === "oneOf") {
      out[key] = (value as unknown[]).map((branch) => summarize(branch, depth));
    } else {
      out[key] = value;
    }
  }
  return out;
}

export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const json = compact(z.toJSONSchema(schema, { io, target: "draft-2020-12", unrepresentable: "any" }), io);
  return (io === "output" ? summarize(json, 0) : json) as JsonSchema;
}

/** The JSON Schemas a tool publishes in `tools/list`, and that the golden fixtures pin. */
export function toolJsonSchemas(
  tool: ToolSpec,
  commands: ReadonlyMap<string, AnyCommand>,
): { input: JsonSchema; output: JsonSchema } {
  const input = jsonSchemaOf(toolInputSchema(tool, commands), "input");
  if ("cli" in tool.wraps) return { input, output: jsonSchemaOf(CliToolOutput, "output") };
  // The root already says "object"; inside the union each branch only needs its fields.
  const { type: _object, ...ok } = jsonSchemaOf(commandOf(tool, commands).output, "output");
  return { input, output: { type: "object", anyOf: [ok, REFUSAL_JSON] } };
}

export function commandOf(tool: ToolSpec, commands: ReadonlyMap<string, AnyCommand>): AnyCommand {
  if ("cli" in tool.wraps) throw new Error(`tool ${tool.name} wraps the CLI, not one command`);
  const command = commands.get(tool.wraps.command);
  if (!command) throw new Error(`tool ${tool.name} wraps unknown command ${tool.wraps.command}`);
  return command;
}

/** Annotations derived from the wrapped command's declared effect, so they cannot drift from it. */
export function toolAnnotations(tool: ToolSpec, commands: ReadonlyMap<string, AnyCommand>) {
  const effect = "cli" in tool.wraps ? "destructive" : commandOf(tool, commands).effect;
  return {
    readOnlyHint: effect === "read",
    destructiveHint: effect === "destructive",
    idempotentHint: tool.idempotent,
    openWorldHint: false,
  };
}
