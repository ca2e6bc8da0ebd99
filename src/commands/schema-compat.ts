/**
 * Published tool input schemas are a contract with every agent configured against them. A new
 * schema may add optional fields; it may not remove, rename or retype a field, nor make a new
 * field required, without a new schema version.
 */
import { isImpliedIntegerBound, portable } from "./schema-portable.js";

type JsonSchema = Record<string, unknown>;

/**
 * Wording may improve freely; only structure is contract. `type: [X, "null"]` and its `anyOf`
 * spelling accept the same values, so both compare in the portable form; an integer's implied
 * ±(2^53 − 1) bounds, published once and no longer, change nothing a caller may send.
 */
function structure(node: unknown): unknown {
  return bare(portable(node));
}

function bare(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(bare);
  if (node === null || typeof node !== "object") return node;
  return Object.fromEntries(
    Object.entries(node as JsonSchema)
      .filter(
        ([key, value]) => key !== "description" && key !== "title" && !isImpliedIntegerBound(key, value),
      )
      .map(([key, value]) => [key, bare(value)]),
  );
}

const propertiesOf = (schema: JsonSchema) => (schema.properties ?? {}) as Record<string, unknown>;
const requiredOf = (schema: JsonSchema) => new Set((schema.required ?? []) as string[]);

export function breakingChanges(tool: string, golden: JsonSchema, current: JsonSchema): string[] {
  const problems: string[] = [];
  const before = propertiesOf(golden);
  const after = propertiesOf(current);
  for (const [field, schema] of Object.entries(before)) {
    if (!(field in after)) problems.push(`${tool}: field ${field} was removed or renamed`);
    else if (JSON.stringify(structure(after[field])) !== JSON.stringify(structure(schema))) {
      problems.push(
        `${tool}: field ${field} changed from ${JSON.stringify(schema)} to ${JSON.stringify(after[field])}`,
      );
    }
  }
  const wasRequired = requiredOf(golden);
  for (const field of requiredOf(current)) {
    if (!wasRequired.has(field)) problems.push(`${tool}: field ${field} became required`);
  }
  return problems;
}
