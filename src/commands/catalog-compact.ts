type JsonSchema = Record<string, unknown>;

/**
 * A file-backed tool's input schema as published, trimmed of what tells a model nothing: a
 * `type` beside a `const` (the constant says it), and on a tool whose only field is
 * `schema_version`, the closed-object marker (zod still refuses any other field at call time,
 * naming it). A skill tool's whole cost is then its description and a few dozen characters:
 * with dozens of skills, every byte here is paid dozens of times in every session.
 */
export function compactInputJson(schema: JsonSchema): JsonSchema {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const trimmed: Record<string, JsonSchema> = {};
  for (const [name, property] of Object.entries(properties)) {
    const { type: _type, ...rest } = property;
    trimmed[name] = "const" in property ? rest : property;
  }
  const out: JsonSchema = { ...schema, properties: trimmed };
  if (Object.keys(trimmed).length === 1 && "schema_version" in trimmed) delete out.additionalProperties;
  return out;
}
