type JsonSchema = Record<string, unknown>;

/**
 * zod bounds every `.int()` by ±(2^53 − 1), the integers JavaScript holds exactly. `type:
 * integer` already tells a client what to send, and the two bounds cost every agent about ten
 * tokens a field, so they are not published; zod still enforces them on every call. A bound a
 * schema chose itself (`limit` 1 to 500) is kept.
 */
export const isImpliedIntegerBound = (key: string, value: unknown): boolean =>
  (key === "minimum" && value === Number.MIN_SAFE_INTEGER) ||
  (key === "maximum" && value === Number.MAX_SAFE_INTEGER);

/**
 * zod writes a nullable primitive as `type: [X, "null"]`. Valid 2020-12, but some clients and
 * the Inspector warn on type arrays, so publish the form every validator reads alike: `anyOf`.
 */
export function portable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(portable);
  if (node === null || typeof node !== "object") return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node as JsonSchema)) out[key] = portable(value);
  if (!Array.isArray(out.type)) return out;
  const { type, description, title, ...rest } = out;
  const branches = (type as string[]).map((one) => (one === "null" ? { type: one } : { type: one, ...rest }));
  return { ...(description ? { description } : {}), ...(title ? { title } : {}), anyOf: branches };
}

/**
 * A published schema is complete when every node a value can land on says what it is: a type,
 * a constant, an enum, a union of such, or a reference to one. `{}` (anything) tells a client
 * nothing it can check or render, so it counts as a gap.
 */
const TYPED_BY = ["type", "const", "enum", "anyOf", "oneOf", "allOf", "$ref"];

/** JSON pointers of the nodes that do not say what they are, and of `type` arrays. */
export function schemaGaps(schema: JsonSchema, at = "#"): string[] {
  const gaps: string[] = [];
  if (!TYPED_BY.some((key) => key in schema)) gaps.push(`${at}: untyped`);
  if (Array.isArray(schema.type)) gaps.push(`${at}: type array ${JSON.stringify(schema.type)}`);
  const sub = (node: unknown, path: string) => {
    if (node && typeof node === "object" && !Array.isArray(node))
      gaps.push(...schemaGaps(node as JsonSchema, path));
  };
  for (const [field, node] of Object.entries((schema.properties ?? {}) as JsonSchema)) {
    sub(node, `${at}/properties/${field}`);
  }
  for (const key of ["items", "additionalProperties"]) sub(schema[key], `${at}/${key}`);
  for (const key of ["anyOf", "oneOf", "allOf", "prefixItems"]) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    for (const [index, branch] of branches.entries()) sub(branch, `${at}/${key}/${index}`);
  }
  for (const [name, node] of Object.entries((schema.$defs ?? {}) as JsonSchema))
    sub(node, `${at}/$defs/${name}`);
  return gaps;
}
