import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitWorkspace } from "../helpers/goals.js";
import { callTool, connectMcp, type McpHandle } from "../helpers/mcp.js";
import { addAgent, machineHome } from "../helpers/workspace.js";

/**
 * An agent with a write grant, allowed `git`, writes files in the workspace (a payload, a patch, a
 * mailbox, a template folder). git's subcommands that put such a file's content at a path of the
 * caller's (`merge-file`, `apply --unsafe-paths`, `mailsplit -o`) or make a repository with the
 * caller's template (`init-db`, init's other name) must not become a way to write the user's
 * ~/.bashrc or a hook their own git runs later: each needs a person, as `archive -o` and
 * `init --template` do, and those two by any prefix git takes for the option (`--templ=`).
 * Nor a push into a repository on this machine: out of the workspace it writes there, and in it,
 * git starts the repository's receive-pack with that repository's own hooks.
 */

let ws: { dir: string; cleanup: () => void };
let away: string;
let mcp: McpHandle;

beforeAll(async () => {
  ws = gitWorkspace();
  const { env } = machineHome(ws.dir, '[os]\nenabled = true\nallow = ["git"]\ntimeout_seconds = 5\n');
  const { token } = addAgent(ws.dir, "writer", "worker");
  away = mkdtempSync(join(tmpdir(), "cairn-git-writes-"));
  writeFileSync(join(ws.dir, "payload.sh"), "touch PWNED\n");
  writeFileSync(
    join(ws.dir, "p.patch"),
    "diff --git a/x.sh b/x.sh\nnew file mode 100644\n--- /dev/null\n+++ b/x.sh\n@@ -0,0 +1 @@\n+touch PWNED\n",
  );
  writeFileSync(
    join(ws.dir, "mbox"),
    "From x Mon Sep 17 00:00:00 2001\nFrom: a <a@example.org>\nSubject: s\n\ntouch PWNED\n",
  );
  writeFileSync(join(ws.dir, "hook.sh"), "#!/bin/sh\ntouch PWNED\nexit 1\n", { mode: 0o755 });
  mkdirSync(join(ws.dir, "tpl", "hooks"), { recursive: true });
  writeFileSync(join(ws.dir, "tpl", "hooks", "pre-commit"), "#!/bin/sh\ntouch PWNED\n", { mode: 0o755 });
  mcp = await connectMcp(ws.dir, { env: { ...env, CAIRN_AGENT: token } });
});
afterAll(async () => {
  await mcp.close();
  ws.cleanup();
  rmSync(away, { recursive: true, force: true });
});

const git = async (...args: string[]) =>
  (await callTool(mcp, "os_run", { bin: "git", args })).structuredContent as {
    refused?: { policy: string; reason: string };
    exit_code?: number;
    stdout?: string;
  };

describe("git through os_run does not write a workspace file's content where the caller says", () => {
  it("merge-file, apply --unsafe-paths, mailsplit -o, init-db and abbreviated options need a person; nothing lands out of the workspace", async () => {
    const rc = join(away, ".bashrc");
    writeFileSync(rc, "# the user's own\n");
    for (const args of [
      ["merge-file", "--theirs", rc, "/dev/null", "payload.sh"],
      ["merge-file", "-L", "-p", "-q", rc, "/dev/null", "payload.sh"],
      ["apply", "--unsafe-paths", `--directory=${away}`, "p.patch"],
      ["apply", "--unsafe", `--dir=${away}`, "p.patch"],
      ["mailsplit", `-o${join(away)}`, "mbox"],
      ["mailsplit", "-o", away, "mbox"],
      ["init-db", join(away, "repo")],
      ["init-db", "--template=tpl"],
      // git takes every long option by a prefix: the checks held only for the whole name.
      ["init", "--templ=tpl"],
      ["init", `--separate-git=${join(away, "sep")}`],
      ["clone", "--temp=tpl", "https://example.invalid/r"],
      ["checkout-index", `--pref=${away}/`, "--all"],
      // A short flag closing a cluster, its value attached.
      ["format-patch", "-1", `-ko${away}`],
    ]) {
      const out = await git(...args);
      expect(out.refused?.policy, `git ${args.join(" ")}`).toBe("os");
      expect(out.refused?.reason).toMatch(/needs a person's confirmation/);
    }
    expect(readFileSync(rc, "utf8")).toBe("# the user's own\n");
    expect(readdirSync(away)).toEqual([".bashrc"]);
    expect(existsSync(join(ws.dir, ".git", "hooks", "pre-commit"))).toBe(false);
  });

  it("the same subcommands run where they write nothing, or only to standard output", async () => {
    const merged = await git("merge-file", "-p", "payload.sh", "/dev/null", "payload.sh");
    expect(merged.refused).toBeUndefined();
    expect(merged.stdout).toBe("touch PWNED\n");
    expect((await git("merge-file", "--stdout", "payload.sh", "payload.sh", "payload.sh")).exit_code).toBe(0);
    expect((await git("apply", "--stat", "p.patch")).exit_code).toBe(0);
    expect((await git("mailsplit", "--help")).refused).toBeUndefined();
    expect((await git("init-db", "-q")).exit_code).toBe(0);
  });
});

describe("git daemon through os_run", () => {
  it("needs a person: its --access-hook runs a program of the caller's on each connection", async () => {
    const port = String(20_000 + Math.floor(Math.random() * 20_000));
    const daemon = git(
      "daemon",
      "--export-all",
      `--base-path=${ws.dir}`,
      "--listen=127.0.0.1",
      `--port=${port}`,
      `--access-hook=${join(ws.dir, "hook.sh")}`,
    );
    await new Promise((done) => setTimeout(done, 1_000));
    await git("ls-remote", `git://127.0.0.1:${port}/`);
    const out = await daemon;
    expect(out.refused?.policy).toBe("os");
    expect(out.refused?.reason).toMatch(/needs a person's confirmation/);
    expect(existsSync(join(ws.dir, "PWNED"))).toBe(false);
  });
});

describe("git push through os_run to a repository on this machine", () => {
  it("needs a person for a path or file: URL; a remote or bare name standing for one meets git's local transport turned off", async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "cairn-git-push-"));
    const bare = (dir: string) => spawnSync("git", ["init", "-q", "--bare", dir]);
    const heads = (dir: string) => spawnSync("git", ["-C", dir, "for-each-ref"], { encoding: "utf8" }).stdout;
    try {
      bare(join(elsewhere, "r.git"));
      // A repository in the workspace whose hook the agent wrote: git runs it on a push.
      bare(join(ws.dir, "in.git"));
      writeFileSync(join(ws.dir, "in.git", "hooks", "pre-receive"), "#!/bin/sh\ntouch PWNED\n", {
        mode: 0o755,
      });
      spawnSync("git", ["config", "remote.o.url", "./in.git"], { cwd: ws.dir });
      for (const args of [
        ["push", join(elsewhere, "r.git"), "HEAD:refs/heads/x"],
        ["push", `--repo=${join(elsewhere, "r.git")}`],
        ["push", `file://${join(elsewhere, "r.git")}`, "HEAD:refs/heads/x"],
        ["push", "./in.git", "HEAD:refs/heads/x"],
        ["send-pack", join(elsewhere, "r.git"), "HEAD:refs/heads/x"],
      ]) {
        const out = await git(...args);
        expect(out.refused?.policy, `git ${args.join(" ")}`).toBe("os");
        expect(out.refused?.reason).toMatch(/needs a person's confirmation/);
      }
      for (const args of [
        ["push", "in.git", "HEAD:refs/heads/x"],
        ["push", "o", "HEAD:refs/heads/x"],
      ]) {
        const out = await git(...args);
        expect(out.refused, `git ${args.join(" ")}`).toBeUndefined();
        expect(out.exit_code).not.toBe(0);
      }
      expect(heads(join(elsewhere, "r.git"))).toBe("");
      expect(heads(join(ws.dir, "in.git"))).toBe("");
      expect(existsSync(join(ws.dir, "PWNED"))).toBe(false);
      expect(existsSync(join(ws.dir, "in.git", "PWNED"))).toBe(false);
      // A fetch from one still runs.
      const fetched = await git("fetch", "-q", ws.dir, "HEAD");
      expect(fetched.exit_code, JSON.stringify(fetched)).toBe(0);
    } finally {
      spawnSync("git", ["config", "--remove-section", "remote.o"], { cwd: ws.dir });
      rmSync(join(ws.dir, "in.git"), { recursive: true, force: true });
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe("git's plumbing through os_run", () => {
  it("needs a person where it writes at a path of the caller's: marks, mail, packs, reports, a socket", async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "cairn-git-plumbing-"));
    const victim = join(elsewhere, "victim");
    writeFileSync(victim, "the user's own\n");
    const head = spawnSync("git", ["rev-parse", "HEAD"], { cwd: ws.dir, encoding: "utf8" }).stdout;
    const pack = spawnSync("git", ["pack-objects", "--stdout"], { cwd: ws.dir, input: head }).stdout;
    writeFileSync(join(ws.dir, "p.pack"), pack);
    writeFileSync(join(elsewhere, "c.pack"), pack);
    const blob = spawnSync("git", ["rev-parse", "HEAD:README.md"], {
      cwd: ws.dir,
      encoding: "utf8",
    }).stdout.trim();
    try {
      for (const args of [
        ["fast-export", `--export-marks=${join(elsewhere, "marks")}`, "HEAD"],
        ["fast-import", `--export-marks=${victim}`],
        ["fast-import", `--export-pack-edges=${join(elsewhere, "edges")}`],
        ["mailinfo", join(elsewhere, "msg"), victim],
        ["pack-objects", join(elsewhere, "base")],
        ["index-pack", "-o", join(elsewhere, "x.idx"), "p.pack"],
        ["index-pack", join(elsewhere, "c.pack")],
        ["bugreport", "-o", elsewhere],
        ["diagnose", `-o${elsewhere}`],
        ["multi-pack-index", `--object-dir=${join(elsewhere, "objects")}`, "write"],
        ["credential-cache--daemon", victim],
        ["credential-cache", `--socket=${victim}`, "store"],
        ["merge-one-file", blob, blob, "", victim, "100644", "100644", ""],
      ]) {
        const out = await git(...args);
        expect(out.refused?.policy, `git ${args.join(" ")}`).toBe("os");
        expect(out.refused?.reason).toMatch(/needs a person's confirmation/);
      }
      expect(readdirSync(elsewhere).sort()).toEqual(["c.pack", "victim"]);
      expect(readFileSync(victim, "utf8")).toBe("the user's own\n");
      // Where they write nothing, or to standard output, they run.
      expect((await git("fast-export", "HEAD")).stdout).toContain("commit refs/heads/");
      expect((await git("pack-objects", "--stdout")).exit_code).toBe(0);
      expect((await git("commit-graph", "write", "--reachable")).exit_code).toBe(0);
    } finally {
      rmSync(join(ws.dir, "p.pack"), { force: true });
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("needs a person for merge-index's program, for-each-repo, and receive-pack run on a repository", async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "cairn-git-plumbing-"));
    const inner = join(ws.dir, "in.git");
    const id = ["-c", "user.name=a", "-c", "user.email=a@example.org"];
    const run = (cwd: string, ...args: string[]) => spawnSync("git", [...id, ...args], { cwd });
    try {
      // A conflict in a repository of the workspace: merge-index runs its program on each file.
      const nested = join(ws.dir, "nested");
      mkdirSync(nested);
      run(nested, "init", "-q", "-b", "main");
      writeFileSync(join(nested, "f"), "a\n");
      run(nested, "add", "f");
      run(nested, "commit", "-qm", "a");
      run(nested, "checkout", "-qb", "topic");
      writeFileSync(join(nested, "f"), "b\n");
      run(nested, "commit", "-qam", "b");
      run(nested, "checkout", "-q", "main");
      writeFileSync(join(nested, "f"), "c\n");
      run(nested, "commit", "-qam", "c");
      run(nested, "merge", "-q", "topic");
      copyFileSync(join(ws.dir, "hook.sh"), join(nested, "hook.sh"));
      // A key of the repository's configuration listing a folder out of the workspace.
      run(ws.dir, "config", "cairn-test.repo", elsewhere);
      // A repository of the workspace whose own configuration names a program (core.alternateRefsCommand).
      run(ws.dir, "init", "-q", "--bare", inner);
      mkdirSync(join(inner, "objects", "info"), { recursive: true });
      writeFileSync(join(inner, "objects", "info", "alternates"), `${join(ws.dir, ".git", "objects")}\n`);
      run(inner, "config", "core.alternateRefsCommand", join(ws.dir, "hook.sh"));
      for (const args of [
        ["-C", "nested", "merge-index", "./hook.sh", "-a"],
        ["for-each-repo", "--config=cairn-test.repo", "--", "init", "-q"],
        ["receive-pack", "in.git"],
        ["upload-pack", elsewhere],
      ]) {
        const out = await git(...args);
        expect(out.refused?.policy, `git ${args.join(" ")}`).toBe("os");
        expect(out.refused?.reason).toMatch(/needs a person's confirmation/);
      }
      expect(existsSync(join(nested, "PWNED"))).toBe(false);
      expect(existsSync(join(inner, "PWNED"))).toBe(false);
      expect(existsSync(join(ws.dir, "PWNED"))).toBe(false);
      expect(readdirSync(elsewhere)).toEqual([]);
    } finally {
      spawnSync("git", ["config", "--remove-section", "cairn-test"], { cwd: ws.dir });
      rmSync(join(ws.dir, "nested"), { recursive: true, force: true });
      rmSync(inner, { recursive: true, force: true });
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe("git mv through os_run", () => {
  it("needs a person where the file would land in a .git folder or out of the workspace, a tracked link followed", async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "cairn-git-mv-"));
    const id = ["-c", "user.name=a", "-c", "user.email=a@example.org"];
    const run = (...args: string[]) => spawnSync("git", [...id, ...args], { cwd: ws.dir, encoding: "utf8" });
    const base = run("rev-parse", "HEAD").stdout.trim();
    try {
      // What a fetched commit can hold: a file (`gitdir: …`, or a hook), and links to .git and out.
      mkdirSync(join(ws.dir, "sub"));
      writeFileSync(join(ws.dir, "sub", "keep"), "");
      writeFileSync(join(ws.dir, "a"), `gitdir: ${elsewhere}\n`, { mode: 0o755 });
      symlinkSync(".git", join(ws.dir, "lnk"));
      symlinkSync(elsewhere, join(ws.dir, "out"));
      run("add", "a", "lnk", "out", "sub/keep");
      run("commit", "-qm", "fixture");
      for (const args of [
        ["mv", "a", ".git"],
        ["mv", "a", "sub/.git"],
        ["mv", "-k", "a", "sub/.GIT"],
        ["-C", "sub", "mv", "../a", ".git"],
        ["mv", "a", "lnk/hooks/pre-commit"],
        ["mv", "a", "out/x"],
        ["mv", "--", "a", "out"],
      ]) {
        const out = await git(...args);
        expect(out.refused?.policy, `git ${args.join(" ")}`).toBe("os");
        expect(out.refused?.reason).toMatch(/needs a person's confirmation/);
      }
      expect(existsSync(join(ws.dir, ".git", "a"))).toBe(false);
      expect(existsSync(join(ws.dir, ".git", "hooks", "pre-commit"))).toBe(false);
      expect(existsSync(join(ws.dir, "sub", ".git"))).toBe(false);
      expect(readdirSync(elsewhere)).toEqual([]);
      // Within the work tree, it moves.
      expect((await git("mv", "a", "sub/b")).exit_code).toBe(0);
      expect((await git("mv", "sub/b", "lnk-free")).exit_code).toBe(0);
    } finally {
      run("reset", "-q", "--hard", base);
      rmSync(join(ws.dir, "sub"), { recursive: true, force: true });
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
