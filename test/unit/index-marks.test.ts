import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { marksIn } from "../../src/domains/goals/git.js";
import { hiddenEdits } from "../../src/domains/goals/hidden-edits.js";
import { readIndex } from "../../src/domains/goals/index-copy.js";
import { indexMarks } from "../../src/domains/goals/index-marks.js";
import { forgeIndexEntry, gitRepo } from "../helpers/goals.js";
import { fifoOpenedLate, runSync } from "../helpers/workspace.js";

/**
 * cairn reads an index's marks itself only to answer "nothing is marked", and must never give that
 * answer where git would list a marked file: every case is checked against `git ls-files -v`.
 */
describe("the marks an index file holds", () => {
  let repo: { dir: string; cleanup: () => void };
  const git = (...args: string[]) => runSync("git", args, repo.dir);
  const indexFile = () => join(repo.dir, ".git", "index");
  const index = () => readFileSync(indexFile());
  /** What git lists as marked in the index file at `path`, or null where git cannot read it. */
  const gitMarks = (path: string): string[] | null => {
    const run = spawnSync("git", ["ls-files", "-v", "-z"], {
      cwd: repo.dir,
      encoding: "utf8",
      env: { ...process.env, GIT_INDEX_FILE: path },
    });
    if (run.status !== 0) return null;
    const { assumeUnchanged, skipWorktree } = marksIn(run.stdout);
    return [...assumeUnchanged, ...skipWorktree];
  };
  /** The index's own answer beside git's, for the index as it is now. */
  const bothSay = () => ({ cairn: indexMarks(index()), git: gitMarks(indexFile()) });
  const blob = (text: string) => {
    writeFileSync(join(repo.dir, ".git", "blob"), text);
    return git("hash-object", "-w", "--", join(repo.dir, ".git", "blob")).trim();
  };

  beforeEach(() => {
    repo = gitRepo("cairn-index-marks-");
  });
  afterEach(() => repo.cleanup());

  /** Files of every kind an index holds, with names of many lengths to move every entry's padding. */
  function populate(): void {
    for (let length = 1; length <= 24; length++)
      writeFileSync(join(repo.dir, "f".repeat(length)), `${length}\n`);
    mkdirSync(join(repo.dir, "src", "deep", "er"), { recursive: true });
    for (const name of ["a.ts", "ab.ts", "abc.ts", "b.ts"])
      writeFileSync(join(repo.dir, "src", "deep", "er", name), name);
    writeFileSync(join(repo.dir, "run.sh"), "#!/bin/sh\n");
    git("update-index", "--chmod=+x", "--add", "run.sh");
    symlinkSync("run.sh", join(repo.dir, "link"));
    git("add", "-A");
    // A submodule's entry (a gitlink), and a path past the 4,095 bytes a name length can state
    // (no file needs to exist for an index entry).
    const commit = "1".repeat(40);
    git("update-index", "--add", "--cacheinfo", `160000,${commit},sub`);
    const long = Array.from({ length: 21 }, (_, at) => `${at}`.padEnd(200, "x")).join("/");
    git("update-index", "--add", "--cacheinfo", `100644,${blob("long\n")},${long}`);
    // After a long name, a short one sharing nothing: version 4 strips over 127 bytes of it.
    git("update-index", "--add", "--cacheinfo", `100644,${blob("z\n")},z`);
    git("commit", "-qm", "base");
    // Intent to add: an entry with extended flags that marks nothing.
    writeFileSync(join(repo.dir, "planned.txt"), "later\n");
    git("add", "-N", "planned.txt");
  }

  for (const version of ["2", "3", "4"]) {
    it(`reads a version ${version} index with nothing marked as git does`, () => {
      populate();
      git("update-index", "--index-version", version);
      const bytes = index();
      // `add -N` needs extended flags, which version 2 cannot hold: git writes version 3 then.
      expect(bytes.readUInt32BE(4)).toBe(version === "2" ? 3 : Number(version));
      expect(bothSay()).toEqual({ cairn: "none", git: [] });
    });

    it(`leaves a version ${version} index that marks a file to git, either mark`, () => {
      populate();
      git("update-index", "--index-version", version);
      git("update-index", "--assume-unchanged", "--", "fff");
      expect(bothSay()).toEqual({ cairn: "ask-git", git: ["fff"] });
      git("update-index", "--no-assume-unchanged", "--", "fff");
      expect(bothSay()).toEqual({ cairn: "none", git: [] });
      git("update-index", "--skip-worktree", "--", join("src", "deep", "er", "b.ts"));
      expect(bothSay()).toEqual({ cairn: "ask-git", git: ["src/deep/er/b.ts"] });
    });
  }

  it("reads an index with no entries, and one with unmerged entries", () => {
    writeFileSync(join(repo.dir, "a.txt"), "base\n");
    git("add", "-A");
    git("commit", "-qm", "base");
    git("rm", "-q", "--cached", "a.txt");
    expect(bothSay()).toEqual({ cairn: "none", git: [] });
    git("reset", "-q");
    git("checkout", "-qb", "other");
    writeFileSync(join(repo.dir, "a.txt"), "other\n");
    git("commit", "-qam", "other");
    git("checkout", "-q", "-");
    writeFileSync(join(repo.dir, "a.txt"), "main\n");
    git("commit", "-qam", "main");
    spawnSync("git", ["merge", "-q", "other"], { cwd: repo.dir });
    expect(git("ls-files", "-u")).toContain(" 3\ta.txt");
    expect(bothSay()).toEqual({ cairn: "none", git: [] });
  });

  it("leaves to git an index it cannot read exactly: split, unhashed, corrupt, cut, of another format or extension", () => {
    populate();
    const plain = index();
    // A split index keeps its entries in a shared file (a required `link` extension).
    git("update-index", "--split-index");
    expect(index().includes("link")).toBe(true);
    expect(indexMarks(index())).toBe("ask-git");
    git("update-index", "--no-split-index");
    expect(indexMarks(index())).toBe("none");

    // A trailing checksum of zeros (`index.skipHash`), one flipped byte, a cut file.
    const zeroed = Buffer.from(plain);
    zeroed.fill(0, zeroed.length - 20);
    expect(indexMarks(zeroed)).toBe("ask-git");
    const flipped = Buffer.from(plain);
    flipped[100] = (flipped[100] as number) ^ 1;
    expect(indexMarks(flipped)).toBe("ask-git");
    for (const cut of [0, 11, 12, 40, plain.length - 21, plain.length - 1])
      expect(indexMarks(plain.subarray(0, cut))).toBe("ask-git");
    // Another signature, another version.
    expect(indexMarks(withChecksum(Buffer.concat([Buffer.from("DIRX"), plain.subarray(4, -20)])))).toBe(
      "ask-git",
    );
    const version5 = Buffer.from(plain.subarray(0, -20));
    version5.writeUInt32BE(5, 4);
    expect(indexMarks(withChecksum(version5))).toBe("ask-git");
    // A required extension cairn does not know, after the entries.
    const unknown = Buffer.alloc(8);
    unknown.write("zzzz", 0, "latin1");
    expect(indexMarks(withChecksum(Buffer.concat([plain.subarray(0, -20), unknown])))).toBe("ask-git");
    // An optional one is skipped, as git skips it.
    const optional = Buffer.alloc(12);
    optional.write("ZZZZ", 0, "latin1");
    optional.writeUInt32BE(4, 4);
    expect(indexMarks(withChecksum(Buffer.concat([plain.subarray(0, -20), optional])))).toBe("none");
  });

  it("leaves to git an index with a table of where its entries start, which git may read from", () => {
    populate();
    git("-c", "index.threads=2", "-c", "index.recordOffsetTable=true", "update-index", "--force-write-index");
    expect(index().includes("IEOT")).toBe(true);
    expect(bothSay()).toEqual({ cairn: "ask-git", git: [] });
    git("update-index", "--force-write-index");
    expect(bothSay()).toEqual({ cairn: "none", git: [] });
  });

  it("leaves to git a sparse index, whose folder entries stand for the files under them", () => {
    populate();
    git("sparse-checkout", "set", "--cone", "src");
    git("config", "index.sparse", "true");
    git("sparse-checkout", "reapply");
    expect(index().includes("sdir")).toBe(true);
    expect(indexMarks(index())).toBe("ask-git");
  });

  it("leaves to git the index of a repository on SHA-256", () => {
    repo.cleanup();
    repo = gitRepo("cairn-index-marks-", "--object-format=sha256");
    writeFileSync(join(repo.dir, "a.txt"), "a\n");
    git("add", "-A");
    expect(gitMarks(indexFile())).toEqual([]);
    expect(indexMarks(index())).toBe("ask-git");
  });

  it("never answers nothing where git lists a mark: every byte of a marked index changed in turn", () => {
    writeFileSync(join(repo.dir, "a.txt"), "a\n");
    writeFileSync(join(repo.dir, "bb.txt"), "b\n");
    git("add", "-A");
    git("update-index", "--index-version", "4");
    const clean = index();
    git("update-index", "--assume-unchanged", "--", "a.txt");
    const marked = index();
    // Each byte of the marked index with each bit flipped in turn, the checksum then made right
    // again: where cairn says nothing is marked, git either refuses the file or agrees. Of the
    // unmarked index (where nearly every change leaves nothing marked, and costs a git to ask),
    // each byte's two high bits, where both marks live, and one more bit in turn.
    const scratch = join(repo.dir, ".git", "mutant");
    let asked = 0;
    for (const original of [clean, marked])
      for (let at = 0; at < original.length - 20; at++)
        for (const bit of original === marked ? [0, 1, 2, 3, 4, 5, 6, 7] : [...new Set([at % 6, 6, 7])]) {
          const mutant = Buffer.from(original.subarray(0, -20));
          mutant[at] = (mutant[at] as number) ^ (1 << bit);
          const whole = withChecksum(mutant);
          if (indexMarks(whole) !== "none") continue;
          writeFileSync(scratch, whole);
          asked++;
          const listed = gitMarks(scratch);
          if (listed !== null) expect({ at, bit, listed }).toEqual({ at, bit, listed: [] });
        }
    expect(asked).toBeGreaterThan(100);
  });

  it("still finds a marked edit in a linked worktree and from a folder inside the checkout", async () => {
    mkdirSync(join(repo.dir, "sub"));
    writeFileSync(join(repo.dir, "sub", "a.txt"), "a\n");
    writeFileSync(join(repo.dir, "b.txt"), "b\n");
    git("add", "-A");
    git("commit", "-qm", "base");
    const tree = join(repo.dir, ".git", "tree");
    git("worktree", "add", "-q", tree);
    runSync("git", ["update-index", "--assume-unchanged", "--", "sub/a.txt"], tree);
    writeFileSync(join(tree, "sub", "a.txt"), "edited\n");
    expect(await hiddenEdits(tree)).toEqual(["sub/a.txt"]);
    // From a folder inside the checkout, the whole checkout is searched, and paths are the
    // repository's: a workspace made in a package is judged by files above it too.
    expect(await hiddenEdits(join(tree, "sub"))).toEqual(["sub/a.txt"]);
    writeFileSync(join(tree, "b.txt"), "b, edited\n");
    runSync("git", ["update-index", "--assume-unchanged", "--", "b.txt"], tree);
    expect((await hiddenEdits(join(tree, "sub"))).sort()).toEqual(["b.txt", "sub/a.txt"]);
    runSync("git", ["update-index", "--no-assume-unchanged", "--", "b.txt"], tree);
    writeFileSync(join(tree, "b.txt"), "b\n");
    runSync("git", ["update-index", "--no-assume-unchanged", "--", "sub/a.txt"], tree);
    expect(await hiddenEdits(tree)).toEqual([]);
    expect(await hiddenEdits(repo.dir)).toEqual([]);
  });

  it("reads the index git reads, where `.git` is a file naming a folder whose name ends in a space", async () => {
    writeFileSync(join(repo.dir, "a.txt"), "a\n");
    git("add", "-A");
    git("commit", "-qm", "base");
    // git takes the whole line after "gitdir: " (only line breaks stripped): the folder with the
    // space, whose index marks a.txt, not the one beside it, whose index marks nothing.
    renameSync(join(repo.dir, ".git"), join(repo.dir, ".real"));
    cpSync(join(repo.dir, ".real"), join(repo.dir, ".real "), { recursive: true });
    writeFileSync(join(repo.dir, ".git"), "gitdir: .real \n");
    git("update-index", "--assume-unchanged", "--", "a.txt");
    writeFileSync(join(repo.dir, "a.txt"), "edited\n");
    expect(indexMarks(readFileSync(join(repo.dir, ".real", "index")))).toBe("none");
    expect(await hiddenEdits(repo.dir)).toEqual(["a.txt"]);
  });

  it("compares the entries of the index git reads, where `.git` names it otherwise than plainly", async () => {
    writeFileSync(join(repo.dir, "a.txt"), "a\n");
    git("add", "-A");
    git("commit", "-qm", "base");
    const honest = index();
    forgeIndexEntry(repo.dir, "a.txt", "claimed\n");
    renameSync(join(repo.dir, ".git"), join(repo.dir, ".real"));
    cpSync(join(repo.dir, ".real"), join(repo.dir, ".real "), { recursive: true });
    writeFileSync(join(repo.dir, ".real", "index"), honest);
    writeFileSync(join(repo.dir, ".git"), "gitdir: .real \n");
    expect(await hiddenEdits(repo.dir)).toEqual(["a.txt"]);
  });

  it("does not wait on a FIFO put in the index's place: that is no index, and git is asked (and can be stopped)", async () => {
    writeFileSync(join(repo.dir, "a.txt"), "a\n");
    git("add", "-A");
    git("commit", "-qm", "base");
    rmSync(indexFile());
    const endWriter = fifoOpenedLate(indexFile());
    try {
      const started = performance.now();
      expect(readIndex(indexFile())).toBeNull();
      expect(performance.now() - started).toBeLessThan(1_000);
      // git, asked which files are marked, waits on the FIFO in turn; a cancel ends the check.
      const cancel = new AbortController();
      setTimeout(() => cancel.abort(), 300);
      await expect(hiddenEdits(repo.dir, cancel.signal)).rejects.toThrow();
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      endWriter();
    }
  });
});

/** `body` (an index without its checksum) with a right one appended. */
function withChecksum(body: Buffer): Buffer {
  return Buffer.concat([body, createHash("sha1").update(body).digest()]);
}
