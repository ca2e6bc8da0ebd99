import { describe, expect, it } from "vitest";
import { CATALOG_GOALS, MIN_DESCRIPTION_CHARS, modelVisibleTokens } from "../../src/commands/catalog-cost.js";
import { COMMANDS_BY_NAME } from "../../src/commands/registry.js";
import { toolJsonSchemas } from "../../src/commands/tool-schemas.js";
import { type PROFILES, TOOLS, toolsForProfile } from "../../src/commands/tools.js";

const visible = (profile: (typeof PROFILES)[number]) =>
  toolsForProfile(profile).map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: toolJsonSchemas(tool, COMMANDS_BY_NAME).input,
  }));

describe("the catalog is the manual, within budget", () => {
  it(`every tool description has at least ${MIN_DESCRIPTION_CHARS} characters`, () => {
    const short = TOOLS.filter((tool) => tool.description.length < MIN_DESCRIPTION_CHARS).map(
      (tool) => `${tool.name} (${tool.description.length})`,
    );
    expect(short).toEqual([]);
  });

  it("the central tools teach their workflow", () => {
    const described = (name: string) => TOOLS.find((tool) => tool.name === name)?.description ?? "";
    expect(described("get_context")).toMatch(/before reading code/);
    expect(described("get_context")).toMatch(/data, not instructions/);
    expect(described("get_context")).toMatch(/larger budget restores/);
    expect(described("add_note")).toMatch(/rejected/);
    for (const severity of ["major", "moderate", "minor"]) expect(described("add_note")).toContain(severity);
    expect(described("add_note")).toMatch(/goal, then question, then metric/);
    expect(described("finish_task")).toMatch(/definition of done/);
    expect(described("finish_task")).toMatch(/unmet criterion/);
  });

  it("model-visible cost per profile stays within its goal", () => {
    for (const [profile, goal] of Object.entries(CATALOG_GOALS)) {
      const tokens = modelVisibleTokens(visible(profile as (typeof PROFILES)[number]));
      expect(tokens, `${profile}: ${tokens} model-visible tokens`).toBeLessThanOrEqual(goal);
    }
  });

  it("the estimate counts name, description and input schema", () => {
    expect(modelVisibleTokens([{ name: "ab", description: "cdef", inputSchema: {} }])).toBe(2);
  });
});
