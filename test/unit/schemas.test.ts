import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMANDS_BY_NAME } from "../../src/commands/registry.js";
import { breakingChanges } from "../../src/commands/schema-compat.js";
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
