import { describe, expect, it } from "vitest";
import { rulesChangeLine } from "../../src/commands/workspace/rules-view.js";
import { parseConfig } from "../../src/domains/workspace/config.js";
import { changedSections, rulesOf } from "../../src/domains/workspace/rules-watch.js";

const rules = (toml: string) => rulesOf(parseConfig(toml, "cairn.toml"));

describe("the rules of a cairn.toml", () => {
  it("are the same however the file is written, and name each section that differs", () => {
    const first = rules(
      '[roles.a]\nscope = ["src/**"]\n[roles.b]\ngrant = "ro"\n[done]\nshortcuts = ["t"]\n',
    );
    const same = rules(
      '# rewritten\n[done]\nnote_kinds = []\nshortcuts = ["t"]\n[roles.b]\ngrant = "ro"\nsummary = ""\n[roles.a]\nscope = ["src/**"]\n[claims]\nlease_minutes = 30\n',
    );
    expect(same.key).toBe(first.key);
    const other = rules('[roles.a]\nscope = ["**"]\n[roles.c]\n[done]\nshortcuts = ["t"]\n');
    expect(changedSections(first, other)).toEqual(["roles.a", "roles.b", "roles.c"]);
  });

  it("a list's order is a rule: shortcuts of the definition of done run in it", () => {
    expect(rules('[done]\nshortcuts = ["a", "b"]\n').key).not.toBe(
      rules('[done]\nshortcuts = ["b", "a"]\n').key,
    );
  });

  it("a line names the sections a change's view holds (ten roles at most), and how many more it changed", () => {
    const sections = Array.from({ length: 10 }, (_, i) => `roles.r${i}`);
    const line = rulesChangeLine({
      at: "2026-12-07T00:00:00.000Z",
      sections,
      sections_total: 13,
      first_seen_in_call_of: "owner",
    });
    expect(line).toBe(
      `${sections.join(", ")} and 3 more at 2026-12-07T00:00:00.000Z, first seen in a call of owner`,
    );
  });

  it("a change names its single tables first, then shortcuts, then roles", () => {
    const before = rules('[roles.a]\n[shortcuts.t]\nargv = ["false"]\n');
    const after = rules('[roles.b]\n[shortcuts.t]\nargv = ["true"]\n[verify]\ntimeout_seconds = 1\n');
    expect(changedSections(before, after)).toEqual(["verify", "shortcuts.t", "roles.a", "roles.b"]);
  });
});
