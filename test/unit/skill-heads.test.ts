import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { discoverSkills, loadSkill } from "../../src/domains/skills/discover.js";
import type { Workspace } from "../../src/domains/workspace/discover.js";

/**
 * A catalog build reads a skill it has never seen in one look and, for an ASCII header, decodes
 * the header alone. Whatever that look gives must be what reading the head the general way gives.
 */
const root = mkdtempSync(join(tmpdir(), "cairn-skill-heads-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const long = (n: number) => "Step by step instructions. ".repeat(n);
const CORPUS: Record<string, string | Buffer> = {
  plain: `---\nname: plain\ndescription: A plain skill\n---\n# Plain\n\n${long(300)}\n`,
  "crlf-body": `---\ndescription: CRLF only below\n---\nline one\r\nline two\r\n`,
  crlf: "---\r\ndescription: CRLF everywhere\r\n---\r\nbody\r\n",
  bom: "\uFEFF---\ndescription: With a BOM\n---\nbody\n",
  unicode: "---\ndescription: Résumé des étapes\n---\nbody\n",
  "unicode-body": `---\ndescription: ASCII header\n---\nCorps: étapes — ${long(200)}\n`,
  "no-description": `---\nname: no-description\n---\n# Title\n\nThe first paragraph stands in.\n\n${long(300)}\n`,
  "no-description-small": "---\nname: x\n---\nSmall first paragraph.\n",
  "invalid-yaml": `---\ndescription: [unclosed\nname: : :\n---\nThe body paragraph.\n\n${long(300)}\n`,
  empty: `---\n---\nOnly a body.\n\n${long(300)}\n`,
  dots: "---\ndescription: Closed by dots\n...\nbody\n",
  "close-spaces": "---\ndescription: Close with spaces\n--- \t\nbody\n",
  "close-eof": "---\ndescription: Closed at the end\n---",
  unclosed: `---\ndescription: Never closed\n${long(300)}\n`,
  "big-header": `---\ndescription: ${"x".repeat(5000)}\n---\nbody\n`,
  "not-utf8": Buffer.concat([
    Buffer.from("---\ndescription: Bad bytes below\n---\n"),
    Buffer.from([0xff, 0xfe, 0x00]),
  ]),
  "js-header": "---js\nmodule.exports = { description: 'evaluated' }\n---\nA js header body.\n",
  "when-to-use":
    "---\ndescription: Does things\nwhen_to_use: When asked\ndisable-model-invocation: true\n---\nbody\n",
  "line-separator": "---\ndescription: a\u2028---\nb\n---\nbody\n",
  "close-before-separator": "---\ndescription: Closed before a line separator\n---\u2028tail\n---\nbody\n",
  "block-scalar": "---\ndescription: |\n  A block\n  ---\n  still the description\n---\nbody\n",
  "dashes-in-value": "---\ndescription: a --- b\nother: ---x\n---\nbody\n",
  nothing: "",
};

describe("a skill's head read in one look", () => {
  it("describes every skill of a corpus as reading its head the general way does", () => {
    const skills = join(root, "ws", ".claude", "skills");
    for (const [name, text] of Object.entries(CORPUS)) {
      mkdirSync(join(skills, name), { recursive: true });
      writeFileSync(join(skills, name, "SKILL.md"), text);
    }
    const workspace: Workspace = {
      kind: "project",
      root: join(root, "ws"),
      stateDir: join(root, "ws", ".cairn"),
      databasePath: join(root, "ws", ".cairn", "cairn.db"),
      configPath: join(root, "ws", ".cairn", "cairn.toml"),
    };
    const env = { HOME: join(root, "home"), CAIRN_HOME: join(root, "cairn-home") };
    const catalog = discoverSkills(workspace, env);
    const found = new Map<string, unknown>();
    for (const skill of catalog.skills) found.set(skill.name, skill);
    for (const dropped of catalog.dropped) found.set(dropped.dir.split("/").pop() as string, dropped);
    expect([...found.keys()].sort()).toEqual(Object.keys(CORPUS).sort());
    for (const name of Object.keys(CORPUS)) {
      const dir = join(skills, name);
      const general = loadSkill(name, dir, dir, ".claude/skills");
      const expected = "reason" in general ? general : { ...general, body: undefined };
      expect(JSON.parse(JSON.stringify(found.get(name))), name).toEqual(JSON.parse(JSON.stringify(expected)));
    }
  });
});
