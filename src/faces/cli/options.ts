import type { z } from "zod";

/** What the CLI needs to know about one input field to turn argv into it. */
export interface FieldShape {
  kind: "string" | "number" | "boolean" | "enum" | "array" | "other";
  required: boolean;
  description: string | undefined;
  choices?: readonly string[];
  /** For arrays: the kind of each element (objects arrive as JSON text on the command line). */
  element?: FieldShape["kind"];
}

interface ZodDefLike {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  entries?: Record<string, string>;
  values?: readonly unknown[];
}

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: ZodDefLike } })._zod.def;

/** Read a zod field's shape, looking through optional/default/nullable wrappers. */
export function fieldShape(schema: z.ZodType): FieldShape {
  let current = schema;
  let required = true;
  const description = schema.description;
  for (;;) {
    const def = defOf(current);
    if ((def.type === "optional" || def.type === "default" || def.type === "nullable") && def.innerType) {
      required = false;
      current = def.innerType;
      continue;
    }
    const inner = current.description ?? description;
    switch (def.type) {
      case "string":
        return { kind: "string", required, description: inner };
      case "number":
      case "int":
        return { kind: "number", required, description: inner };
      case "boolean":
        return { kind: "boolean", required, description: inner };
      case "enum":
        return { kind: "enum", required, description: inner, choices: Object.values(def.entries ?? {}) };
      case "literal":
        return { kind: "enum", required, description: inner, choices: (def.values ?? []).map(String) };
      case "array":
        return {
          kind: "array",
          required,
          description: inner,
          element: def.element ? fieldShape(def.element).kind : "other",
        };
      default:
        return { kind: "other", required, description: inner };
    }
  }
}

export const flagOf = (field: string) => `--${field.replaceAll("_", "-")}`;
