import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { discoverSkills, findSkill } from "../../src/domains/skills/discover.js";
import { projectWorkspace } from "../../src/domains/workspace/discover.js";
import { isRacy, RACY_MS, StampCache, stampOf } from "../../src/kernel/stamp-cache.js";
import { StampStore } from "../../src/kernel/stamp-store.js";
import { skillMd } from "../helpers/skills.js";
import { fifoOpenedLate, scratchDir } from "../helpers/workspace.js";

const scratch = scratchDir("cairn-stamp-");
afterAll(() => scratch.cleanup());
const env = { HOME: join(scratch.dir, "home"), CAIRN_HOME: join(scratch.dir, "cairn-home") };
const workspace = projectWorkspace(scratch.dir);
const skillFile = (name: string) => join(scratch.dir, ".claude", "skills", name, "SKILL.md");

function writeSkill(name: string, text: string): void {
  mkdirSync(join(scratch.dir, ".claude", "skills", name), { recursive: true });
  writeFileSync(skillFile(name), text);
}

describe("the stamp cache", () => {
  const stats = { dev: 1, ino: 2, size: 3, mtimeMs: 1_000, ctimeMs: 1_000 };

  it("keeps a settled file's entry for its exact stamp only", () => {
    const cache = new StampCache<string>();
    cache.set("a", stampOf(stats), isRacy(stats, 1_000 + RACY_MS), "parsed");
    expect(cache.get("a", stampOf(stats))).toBe("parsed");
    for (const change of [{ ino: 9 }, { size: 4 }, { mtimeMs: 999 }, { ctimeMs: 1_001 }, { dev: 7 }]) {
      expect(cache.get("a", stampOf({ ...stats, ...change }))).toBeUndefined();
    }
  });

  it("keeps nothing for a file changed within the racy window, and drops what it had", () => {
    const cache = new StampCache<string>();
    cache.set("a", stampOf(stats), false, "old");
    expect(isRacy(stats, 1_000 + RACY_MS - 1)).toBe(true);
    // A change time in the future (a clock set back) is racy too.
    expect(isRacy({ ...stats, ctimeMs: 5_000 }, 1_000)).toBe(true);
    cache.set("a", stampOf(stats), true, "new");
    expect(cache.get("a", stampOf(stats))).toBeUndefined();
  });
});

describe("the stamp cache's copy on disk", () => {
  const isText = (value: unknown): value is string => typeof value === "string";
  const file = join(scratch.dir, "cache", "test.json");

  it("gives a new process what an earlier one kept, at the same stamp only", () => {
    const first = new StampStore<string>("test-1", isText);
    first.cache(file).set("a", "stamp-1", false, "parsed");
    first.cache(file).set("racy", "stamp-2", true, "not kept");
    first.save(file);
    first.flush();
    const second = new StampStore<string>("test-1", isText);
    expect(second.cache(file).get("a", "stamp-1")).toBe("parsed");
    expect(second.cache(file).get("a", "stamp-9")).toBeUndefined();
    expect(second.cache(file).get("racy", "stamp-2")).toBeUndefined();
  });

  it("ignores a copy of another format, a corrupt one, and values of the wrong shape", () => {
    expect(new StampStore<string>("test-2", isText).cache(file).get("a", "stamp-1")).toBeUndefined();
    writeFileSync(file, "{not json");
    expect(new StampStore<string>("test-1", isText).cache(file).get("a", "stamp-1")).toBeUndefined();
    const writer = new StampStore<unknown>("test-1", (v): v is unknown => true);
    writer.cache(file).set("a", "stamp-1", false, { an: "object" });
    writer.save(file);
    writer.flush();
    expect(new StampStore<string>("test-1", isText).cache(file).get("a", "stamp-1")).toBeUndefined();
  });

  it("does not wait on a FIFO put in the copy's place: it starts empty at once", () => {
    const fifo = join(scratch.dir, "stamps-fifo.json");
    const endWriter = fifoOpenedLate(fifo);
    try {
      const started = performance.now();
      expect(new StampStore<string>("test-1", isText).cache(fifo).get("a", "stamp-1")).toBeUndefined();
      expect(performance.now() - started).toBeLessThan(1_000);
    } finally {
      endWriter();
    }
  });
});

describe("skill discovery through the cache", () => {
  it("sees a same-size rewrite made within the same clock tick as the read before it", () => {
    writeSkill("tick", skillMd({ description: "First text" }, "one\n"));
    expect(discoverSkills(workspace, env).skills.find((s) => s.name === "tick")?.description).toBe(
      "First text",
    );
    writeSkill("tick", skillMd({ description: "Other text" }, "two\n"));
    expect(discoverSkills(workspace, env).skills.find((s) => s.name === "tick")?.description).toBe(
      "Other text",
    );
  });

  it("reads past the 4 KB head when the header or the standing-in paragraph runs longer", () => {
    const long = "x".repeat(6_000);
    writeSkill(
      "long-header",
      `---\nmetadata:\n  note: ${long}\ndescription: Found after a long header\n---\nbody\n`,
    );
    writeSkill("long-paragraph", `${"word ".repeat(1_500)}end of the first paragraph\n\nnext\n`);
    const catalog = discoverSkills(workspace, env);
    expect(catalog.skills.find((s) => s.name === "long-header")?.description).toBe(
      "Found after a long header",
    );
    expect(catalog.skills.find((s) => s.name === "long-paragraph")?.description).toMatch(
      /end of the first paragraph$/,
    );
    // Loading reads the whole body, never the catalog's head.
    const body = `${"line of the body\n".repeat(600)}the end\n`;
    writeSkill("big-body", skillMd({ description: "A long body" }, body));
    const loaded = findSkill(discoverSkills(workspace, env), "big-body");
    expect(loaded?.body).toBe(body);
  });
});
