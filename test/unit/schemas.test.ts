import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMANDS_BY_NAME } from "../../src/commands/registry.js";
import { breakingChanges } from "../../src/commands/schema-compat.js";
import { schemaGaps } from "../../src/commands/schema-portable.js";
import { toolJsonSchemas } from "../../src/commands/tool-schemas.js";
import { TOOLS } from "../../src/commands/tools.js";
import { REPO_ROOT } from "../helpers/workspace.js";

const FIXTURES = join(REPO_ROOT, "test", "fixtures", "schemas");

describe("published tool schemas are golden fixtures", () => {
  it("every tool has a fixture (npm run schemas:accept records new ones)", () => {
    const missing = TOOLS.filter((tool) => !existsSync(join(FIXTURES, `${tool.name}.input.json`)));
    expect(missing.map((tool) => tool.name)).toEqual([]);
  });

  it("no published tool disappeared", () => {
    const published = new Set(TOOLS.map((tool) => tool.name));
    const fixtures = readdirSync(FIXTURES).map((file) => file.replace(/\.input\.json$/, ""));
    expect(fixtures.filter((name) => !published.has(name))).toEqual([]);
  });

  it("every change since the fixture was recorded is additive", () => {
    const problems = TOOLS.flatMap((tool) => {
      const golden = JSON.parse(readFileSync(join(FIXTURES, `${tool.name}.input.json`), "utf8"));
      return breakingChanges(tool.name, golden, toolJsonSchemas(tool, COMMANDS_BY_NAME).input);
    });
    expect(problems).toEqual([]);
  });

  it("every input schema requires schema_version 1 and rejects unknown fields", () => {
    for (const tool of TOOLS) {
      const { input } = toolJsonSchemas(tool, COMMANDS_BY_NAME);
      expect(input.required, tool.name).toContain("schema_version");
      expect((input.properties as Record<string, unknown>).schema_version, tool.name).toMatchObject({
        const: 1,
      });
      expect(input.additionalProperties, tool.name).toBe(false);
    }
  });
});

type Node = Record<string, unknown>;
/** The schema node at a path of keys, or undefined where the path breaks off. */
const at = (node: Node | undefined, ...path: string[]): unknown =>
  path.reduce<unknown>((current, key) => (current as Node | undefined)?.[key], node);

describe("published schemas are complete and portable", () => {
  it("every node of every input and output schema is typed, at full depth, with no type arrays", () => {
    const gaps = TOOLS.flatMap((tool) => {
      const { input, output } = toolJsonSchemas(tool, COMMANDS_BY_NAME);
      return [...schemaGaps(input), ...schemaGaps(output)].map((gap) => `${tool.name} ${gap}`);
    });
    expect(gaps).toEqual([]);
  });

  it("outputs are published to full depth, refusals included, and the cli tool's output is typed", () => {
    const claim = TOOLS.find((tool) => tool.name === "claim_task");
    if (!claim) throw new Error("claim_task is missing");
    const [ok, refused] = toolJsonSchemas(claim, COMMANDS_BY_NAME).output.anyOf as Node[];
    expect(at(ok, "properties", "criteria", "items", "properties")).toHaveProperty("text");
    expect(at(refused, "properties", "refused", "required")).toEqual(["policy", "reason", "next"]);
    const cli = TOOLS.find((tool) => tool.name === "cli");
    if (!cli) throw new Error("cli is missing");
    const output = toolJsonSchemas(cli, COMMANDS_BY_NAME).output as Node;
    expect(at(output, "properties", "output")).toHaveProperty("$ref");
    expect(JSON.stringify(output.$defs)).toContain('"type":"null"');
  });

  it("the gap finder sees an untyped node and a type array", () => {
    expect(schemaGaps({ type: "object", properties: { a: {}, b: { type: ["string", "null"] } } })).toEqual([
      "#/properties/a: untyped",
      '#/properties/b: type array ["string","null"]',
    ]);
  });
});

describe("zod's implied integer bounds", () => {
  const impliedBound = /"(minimum|maximum)":-?9007199254740991\b/;

  it("are published by no tool, in or out, while a bound a schema chose is kept", () => {
    const carrying = TOOLS.filter((tool) =>
      impliedBound.test(JSON.stringify(toolJsonSchemas(tool, COMMANDS_BY_NAME))),
    );
    expect(carrying.map((tool) => tool.name)).toEqual([]);
    const listTasks = TOOLS.filter((tool) => tool.name === "list_tasks");
    const [limit] = listTasks.map(
      (tool) => (toolJsonSchemas(tool, COMMANDS_BY_NAME).input.properties as Record<string, unknown>).limit,
    );
    expect(limit).toEqual({ type: "integer", minimum: 1, maximum: 500 });
  });

  it("are still enforced on a call", () => {
    const checkTask = COMMANDS_BY_NAME.get("task check");
    expect(checkTask?.input.safeParse({ task: "T-1", n: 2 ** 60 }).success).toBe(false);
    expect(checkTask?.input.safeParse({ task: "T-1", n: 2 }).success).toBe(true);
  });

  it("compare as absent against a golden schema that held them, unlike a real bound", () => {
    const held = {
      type: "object",
      properties: { n: { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 } },
    };
    expect(breakingChanges("t", held, { type: "object", properties: { n: { type: "integer" } } })).toEqual(
      [],
    );
    expect(
      breakingChanges("t", held, { type: "object", properties: { n: { type: "integer", maximum: 9 } } }),
    ).toHaveLength(1);
  });
});

describe("the compatibility rule itself", () => {
  const golden = {
    type: "object",
    properties: { schema_version: { const: 1 }, title: { type: "string" }, limit: { type: "number" } },
    required: ["schema_version", "title"],
  };

  it("passes an added optional field and reworded descriptions", () => {
    const current = {
      ...golden,
      properties: {
        ...golden.properties,
        title: { type: "string", description: "new words" },
        label: { type: "string" },
      },
    };
    expect(breakingChanges("t", golden, current)).toEqual([]);
  });

  it("reads a nullable written as a type array and as anyOf as the same field", () => {
    const before = { type: "object", properties: { n: { type: ["number", "null"] } } };
    const after = { type: "object", properties: { n: { anyOf: [{ type: "number" }, { type: "null" }] } } };
    expect(breakingChanges("t", before, after)).toEqual([]);
    expect(
      breakingChanges("t", before, { type: "object", properties: { n: { type: "number" } } }),
    ).toHaveLength(1);
  });

  it("fails a removed, a renamed, a retyped field and a new required one", () => {
    expect(
      breakingChanges("t", golden, {
        ...golden,
        properties: { schema_version: { const: 1 }, title: { type: "string" } },
      }),
    ).toEqual(["t: field limit was removed or renamed"]);
    expect(
      breakingChanges("t", golden, {
        ...golden,
        properties: { schema_version: { const: 1 }, heading: { type: "string" }, limit: { type: "number" } },
        required: ["schema_version", "heading"],
      }),
    ).toEqual(["t: field title was removed or renamed", "t: field heading became required"]);
    expect(
      breakingChanges("t", golden, {
        ...golden,
        properties: { ...golden.properties, limit: { type: "string" } },
      }),
    ).toHaveLength(1);
  });
});
