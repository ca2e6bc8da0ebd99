import {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { changedPaths, checkoutStatus } from "../../src/domains/goals/git.js";
import { hiddenEdits } from "../../src/domains/goals/hidden-edits.js";
import { treeFingerprint } from "../../src/domains/goals/measured-tree.js";
import { workTreeNamer } from "../../src/domains/goals/work-tree-id.js";
import { gitHead } from "../../src/kernel/git.js";
import { forgeIndexEntry, gitRepo } from "../helpers/goals.js";
import { runSync } from "../helpers/workspace.js";

/** One `git status` answers both HEAD and the changed paths the tree fingerprint is made of. */
describe("a checkout's status", () => {
  let repo: { dir: string; cleanup: () => void };
  const git = (...args: string[]) => runSync("git", args, repo.dir);
  beforeEach(() => {
    repo = gitRepo("cairn-status-");
  });
  afterEach(() => repo.cleanup());

  it("has no HEAD before a first commit, and lists what is untracked", async () => {
    writeFileSync(join(repo.dir, "a file.txt"), "a\n");
    expect(await checkoutStatus(repo.dir)).toEqual({ head: null, paths: ["a file.txt"] });
    expect(await treeFingerprint(repo.dir)).toMatch(/^sha256:/);
  });

  it("names HEAD as git does and every kind of change: edited, renamed (both names), added, untracked", async () => {
    mkdirSync(join(repo.dir, "src"));
    writeFileSync(join(repo.dir, "src", "old name.ts"), "export {};\n");
    writeFileSync(join(repo.dir, "kept.txt"), "kept\n");
    writeFileSync(join(repo.dir, "edited.txt"), "before\n");
    mkdirSync(join(repo.dir, ".cairn"));
    writeFileSync(join(repo.dir, ".cairn", "cairn.toml"), "# cairn's own state\n");
    git("add", "-A");
    git("commit", "-qm", "base");
    writeFileSync(join(repo.dir, "edited.txt"), "after\n");
    renameSync(join(repo.dir, "src", "old name.ts"), join(repo.dir, "src", "new name.ts"));
    git("add", "-A", "src");
    writeFileSync(join(repo.dir, "staged.txt"), "staged\n");
    git("add", "staged.txt");
    mkdirSync(join(repo.dir, "deep", "er"), { recursive: true });
    writeFileSync(join(repo.dir, "deep", "er", "untracked.txt"), "new\n");
    writeFileSync(join(repo.dir, ".cairn", "cairn.toml"), "# edited state is no change\n");
    const status = await checkoutStatus(repo.dir);
    expect(status.head).toBe(await gitHead(repo.dir));
    expect(status.paths).toEqual([
      "deep/er/untracked.txt",
      "edited.txt",
      "src/new name.ts",
      "src/old name.ts",
      "staged.txt",
    ]);
    expect(await changedPaths(repo.dir)).toEqual(status.paths);
  });

  it("names the content of the work tree: the same whether committed or not, the checkout's index untouched", async () => {
    writeFileSync(join(repo.dir, "a.txt"), "a\n");
    const workTreeId = (await workTreeNamer(repo.dir)) as () => Promise<string | null>;
    expect(await workTreeNamer(join(repo.dir, ".git"))).toBeNull();
    const before = await workTreeId();
    expect(before).toMatch(/^[0-9a-f]{40,64}$/);
    git("add", "-A");
    git("commit", "-qm", "base");
    writeFileSync(join(repo.dir, "a.txt"), "edited\n");
    writeFileSync(join(repo.dir, "b.txt"), "new\n");
    const index = readFileSync(join(repo.dir, ".git", "index"));
    const edited = await workTreeId();
    expect(edited).not.toBe(before);
    expect(readFileSync(join(repo.dir, ".git", "index"))).toEqual(index);
    expect(await changedPaths(repo.dir)).toEqual(["a.txt", "b.txt"]);
    // cairn's state is not the work, tracked or not.
    mkdirSync(join(repo.dir, ".cairn"));
    writeFileSync(join(repo.dir, ".cairn", "cairn.toml"), "# state\n");
    expect(await workTreeId()).toBe(edited);
    git("add", "-A");
    git("commit", "-qm", "the work");
    expect(await workTreeId()).toBe(edited);
    writeFileSync(join(repo.dir, "b.txt"), "changed again\n");
    expect(await workTreeId()).not.toBe(edited);
  });

  it("sees an edit to a file marked assume-unchanged or skip-worktree, and leaves the marks in place", async () => {
    for (const name of ["a.txt", "b.txt", "-c.txt"]) writeFileSync(join(repo.dir, name), `${name}\n`);
    git("add", "-A");
    git("commit", "-qm", "base");
    const workTreeId = (await workTreeNamer(repo.dir)) as () => Promise<string | null>;
    const checked = await workTreeId();
    git("update-index", "--assume-unchanged", "a.txt");
    git("update-index", "--skip-worktree", "b.txt");
    // Marked, a file's edit is one git itself no longer reports.
    writeFileSync(join(repo.dir, "a.txt"), "edited while marked\n");
    expect(await changedPaths(repo.dir)).toEqual([]);
    const afterA = await workTreeId();
    expect(afterA).not.toBe(checked);
    writeFileSync(join(repo.dir, "b.txt"), "edited while marked\n");
    expect(await workTreeId()).not.toBe(afterA);
    // The copy is cleared, not the checkout's own index: the owner's marks stay where they were.
    expect(runSync("git", ["ls-files", "-v"], repo.dir)).toContain("h a.txt");
    expect(runSync("git", ["ls-files", "-v"], repo.dir)).toContain("S b.txt");
    // A name that reads as an option is a path all the same.
    git("update-index", "--assume-unchanged", "--", "-c.txt");
    const beforeC = await workTreeId();
    writeFileSync(join(repo.dir, "-c.txt"), "edited while marked\n");
    expect(await workTreeId()).not.toBe(beforeC);
  });

  it("names the tree where .gitignore names cairn's folder, which git refuses in a pathspec", async () => {
    writeFileSync(join(repo.dir, ".gitignore"), ".cairn/\n");
    writeFileSync(join(repo.dir, "a.txt"), "a\n");
    mkdirSync(join(repo.dir, ".cairn"));
    writeFileSync(join(repo.dir, ".cairn", "cairn.db"), "state\n");
    const workTreeId = (await workTreeNamer(repo.dir)) as () => Promise<string | null>;
    const before = await workTreeId();
    expect(before).toMatch(/^[0-9a-f]{40,64}$/);
    writeFileSync(join(repo.dir, ".cairn", "cairn.db"), "state changed\n");
    expect(await workTreeId()).toBe(before);
    writeFileSync(join(repo.dir, "a.txt"), "edited\n");
    expect(await workTreeId()).not.toBe(before);
  });

  it("names the edits git is told to skip, and only those: not a marked file left alone, nor one absent", async () => {
    for (const name of ["edited.txt", "same.txt", "gone.txt", "a name.txt", "-dash.txt"])
      writeFileSync(join(repo.dir, name), `${name}\n`);
    git("add", "-A");
    git("commit", "-qm", "base");
    expect(await hiddenEdits(repo.dir)).toEqual([]);
    git("update-index", "--assume-unchanged", "--", "edited.txt", "same.txt", "a name.txt");
    git("update-index", "--skip-worktree", "--", "gone.txt", "-dash.txt");
    writeFileSync(join(repo.dir, "edited.txt"), "edited\n");
    writeFileSync(join(repo.dir, "a name.txt"), "edited\n");
    writeFileSync(join(repo.dir, "-dash.txt"), "edited\n");
    // Rewritten with the same content: a new stat, no edit.
    writeFileSync(join(repo.dir, "same.txt"), "same.txt\n");
    // Absent, as a sparse checkout leaves the files outside its cone.
    rmSync(join(repo.dir, "gone.txt"));
    expect((await hiddenEdits(repo.dir)).sort()).toEqual(["-dash.txt", "a name.txt", "edited.txt"]);
    expect(await changedPaths(repo.dir)).toEqual([]);
  });

  it("keeps an index of its own beside git's: what the checkout force-adds is tracked, scratch and pruned blobs cost nothing", async () => {
    writeFileSync(join(repo.dir, ".gitignore"), "*.log\n");
    writeFileSync(join(repo.dir, "a.txt"), "a\n");
    git("add", "-A");
    git("commit", "-qm", "base");
    const gitDir = join(repo.dir, ".git");
    const scratch = () => readdirSync(gitDir).filter((name) => name.startsWith("cairn-index."));
    const workTreeId = (await workTreeNamer(repo.dir)) as () => Promise<string>;
    const base = await workTreeId();
    expect(statSync(join(gitDir, "cairn-index")).isFile()).toBe(true);
    expect(scratch()).toEqual([]);
    // Ignored, a file is no part of the tree; added in spite of the rule, it is, and so are its edits.
    writeFileSync(join(repo.dir, "x.log"), "ignored\n");
    expect(await workTreeId()).toBe(base);
    git("add", "-f", "x.log");
    const forced = await workTreeId();
    expect(forced).not.toBe(base);
    writeFileSync(join(repo.dir, "x.log"), "edited\n");
    expect(await workTreeId()).not.toBe(forced);
    // A blob cairn wrote, pruned since by git: the id is of the content, which is still there.
    writeFileSync(join(repo.dir, "u.txt"), "untracked\n");
    const untracked = await workTreeId();
    const blob = runSync("git", ["hash-object", "u.txt"], repo.dir).trim();
    rmSync(join(gitDir, "objects", blob.slice(0, 2), blob.slice(2)));
    expect(await workTreeId()).toBe(untracked);
    // What a killed check left beside the index goes once it is an hour old, not before.
    const hourAgo = new Date(Date.now() - 3_700_000);
    writeFileSync(join(gitDir, "cairn-index.1.dead"), "");
    utimesSync(join(gitDir, "cairn-index.1.dead"), hourAgo, hourAgo);
    writeFileSync(join(gitDir, "cairn-index.2.live"), "");
    await workTreeNamer(repo.dir);
    expect(scratch()).toEqual(["cairn-index.2.live"]);
  });

  it("names a file under a clean filter (as Git LFS sets one) by its content, before its commit and after", async () => {
    git("config", "filter.upper.clean", "tr a-z A-Z");
    writeFileSync(join(repo.dir, ".gitattributes"), "*.bin filter=upper\n");
    writeFileSync(join(repo.dir, "a.bin"), "base\n");
    git("add", "-A");
    git("commit", "-qm", "base");
    writeFileSync(join(repo.dir, "a.bin"), "edited\n");
    // Edited well before the commit, as work is: git takes the file's entry on its stat after.
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(repo.dir, "a.bin"), past, past);
    const workTreeId = (await workTreeNamer(repo.dir)) as () => Promise<string>;
    const checked = await workTreeId();
    // Committed through the filter, the checkout's index holds what the filter printed.
    git("add", "-A");
    git("commit", "-qm", "the work");
    expect(runSync("git", ["show", "HEAD:a.bin"], repo.dir)).toBe("EDITED\n");
    expect(await workTreeId()).toBe(checked);
  });

  it("names a file whose index entry records other content than the file holds, and only such a file", async () => {
    for (const name of ["a.txt", "b.txt"]) writeFileSync(join(repo.dir, name), `${name}\n`);
    git("add", "-A");
    git("commit", "-qm", "base");
    // An edit git sees is no hidden edit.
    writeFileSync(join(repo.dir, "b.txt"), "edited in the open\n");
    expect(await hiddenEdits(repo.dir)).toEqual([]);
    forgeIndexEntry(repo.dir, "a.txt", "claimed\n");
    expect(await changedPaths(repo.dir)).toEqual(["a.txt", "b.txt"]);
    expect(await hiddenEdits(repo.dir)).toEqual(["a.txt"]);
    git("reset", "-q", "--", "a.txt");
    expect(await hiddenEdits(repo.dir)).toEqual([]);
  });

  it("sees an edit past the first thousand marked files, which take more than one git call", async () => {
    const names = Array.from({ length: 1_205 }, (_, i) => `f${String(i).padStart(4, "0")}.txt`);
    for (const name of names) writeFileSync(join(repo.dir, name), `${name}\n`);
    git("add", "-A");
    git("commit", "-qm", "base");
    const workTreeId = (await workTreeNamer(repo.dir)) as () => Promise<string>;
    const checked = await workTreeId();
    runSync("sh", ["-c", "git ls-files -z | xargs -0 git update-index --assume-unchanged"], repo.dir);
    const last = names.at(-1) as string;
    writeFileSync(join(repo.dir, last), "edited while marked\n");
    expect(await changedPaths(repo.dir)).toEqual([]);
    expect(await hiddenEdits(repo.dir)).toEqual([last]);
    // cairn's index was written before the marks: a copy of the checkout's carries them.
    rmSync(join(repo.dir, ".git", "cairn-index"));
    expect(await workTreeId()).not.toBe(checked);
  });

  it("sees a same-size edit made in the second the index was written, as git itself does", async () => {
    const workTreeId = async () => ((await workTreeNamer(repo.dir)) as () => Promise<string>)();
    const seconds = (path: string) => Math.floor(statSync(path).mtimeMs / 1000);
    const file = join(repo.dir, "a.txt");
    const index = join(repo.dir, ".git", "index");
    let before = "";
    // Written, committed and edited within one second (git stamps times to the second here);
    // once in a while the second turns in between, and it is done again.
    for (let attempt = 0; attempt < 5; attempt++) {
      writeFileSync(file, `first ${attempt}\n`);
      git("add", "-A");
      git("commit", "-qm", `base ${attempt}`);
      before = await workTreeId();
      writeFileSync(file, `again ${attempt}\n`);
      if (seconds(file) === seconds(index)) break;
    }
    expect(seconds(file)).toBe(seconds(index));
    // Named a second later, the copy of the index is a second newer than the edit.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await workTreeId()).not.toBe(before);
  });
});
