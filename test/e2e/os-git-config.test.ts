import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { gitWorkspace } from "../helpers/goals.js";
import { cairn, machineHome, runSync } from "../helpers/workspace.js";

/**
 * An agent that can edit files in the workspace but has no shell can write `.git/config` and
 * `.git/hooks`: git then runs whatever program they name. An allowed `git status` (even a pinned,
 * read-only one) must not become a way to run a program no one allowed.
 */

let ws: { dir: string; cleanup: () => void };
let env: Record<string, string>;
const pwned = () => join(ws.dir, "PWNED");

beforeAll(() => {
  ws = gitWorkspace();
  ({ env } = machineHome(ws.dir, '[os]\nenabled = true\nallow = ["git"]\ndeny = ["git push"]\n'));
  const evil = join(ws.dir, "evil.sh");
  writeFileSync(evil, `#!/bin/sh\ntouch ${pwned()}\n`);
  chmodSync(evil, 0o755);
  writeFileSync(
    join(ws.dir, ".git", "info", "exclude"),
    "PWNED\nevil.sh\nhome/\ncairn-home/\n.cairn/\nother/\n",
  );
});
afterAll(() => ws.cleanup());
beforeEach(() => {
  rmSync(pwned(), { force: true });
  for (const key of [
    "core.fsmonitor",
    "core.sshCommand",
    "alias.x",
    "alias.p",
    "diff.evil.textconv",
    "core.worktree",
  ])
    spawnSync("git", ["config", "--unset-all", key], { cwd: ws.dir });
});

const osRun = (...args: string[]) => cairn(ws.dir, ["os", "run", "git", "--json", "--", ...args], { env });

describe("git through os run ignores what the workspace's git configuration would run", () => {
  it("a core.fsmonitor planted in .git/config does not run on `git status`", () => {
    runSync("git", ["config", "core.fsmonitor", join(ws.dir, "evil.sh")], ws.dir);
    const status = osRun("status", "--short");
    expect(existsSync(pwned())).toBe(false);
    expect([0, 3]).toContain(status.code);
  });

  it("a hook planted in .git/hooks does not run on an allowed `git commit`", () => {
    const hook = join(ws.dir, ".git", "hooks", "pre-commit");
    writeFileSync(hook, `#!/bin/sh\ntouch ${pwned()}\n`);
    chmodSync(hook, 0o755);
    try {
      const commit = osRun("commit", "--allow-empty", "-qm", "empty");
      expect(existsSync(pwned())).toBe(false);
      expect([0, 3]).toContain(commit.code);
    } finally {
      rmSync(hook);
    }
  });

  it("an alias of the operator's own configuration is judged as what it expands to: `git p` for a denied push", () => {
    const gitconfig = join(env.HOME as string, ".gitconfig");
    mkdirSync(env.HOME as string, { recursive: true });
    writeFileSync(gitconfig, "[alias]\n\tp = push\n\tpp = p --force\n\tst = status\n");
    try {
      for (const alias of ["p", "pp"]) {
        const push = osRun(alias, "origin", "HEAD");
        expect(push.code, alias).toBe(3);
        expect(push.stderr).toContain("`git push` is on the deny list");
      }
      expect(osRun("st", "--short").code).toBe(0);
    } finally {
      rmSync(gitconfig);
    }
  });

  it("a core.worktree set to a folder out of the workspace is refused: checkout would write there", () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "cairn-worktree-"));
    runSync("git", ["config", "core.worktree", elsewhere], ws.dir);
    const checkout = osRun("checkout", "HEAD", "--", ".");
    expect(checkout.code).toBe(3);
    expect(checkout.stderr).toContain("core.worktree");
    expect(readdirSync(elsewhere)).toEqual([]);
    rmSync(elsewhere, { recursive: true });
    // One inside the workspace (as a submodule's repository sets it) is no reason to refuse.
    runSync("git", ["config", "core.worktree", ws.dir], ws.dir);
    expect(osRun("status", "--short").code).toBe(0);
  });

  it("-C or --git-dir pointing git out of the workspace needs a person: an agent's file is not checked out into the user's home", () => {
    const home = mkdtempSync(join(tmpdir(), "cairn-git-away-"));
    try {
      // The audit's route: a repository made in the home, then a fetch and a checkout into it.
      for (const args of [
        ["-C", home, "init", "-q"],
        [`-C${home}`, "status"],
        ["-C", "..", "status"],
        ["-C", ws.dir, "-C", "..", "log"],
        [`--git-dir=${join(home, ".git")}`, "status"],
        ["--git-dir", join(home, ".git"), "status"],
        // A global option's value before them is no subcommand (git 2.40 and before).
        ["--super-prefix", "x/", "-C", home, "read-tree", "HEAD"],
      ]) {
        const away = osRun(...args);
        expect(away.code, args.join(" ")).toBe(3);
        expect(away.stderr).toMatch(/points git at a folder out of the workspace/);
      }
      expect(readdirSync(home)).toEqual([]);
      // Within the workspace, -C and --git-dir run as before.
      mkdirSync(join(ws.dir, "inner"));
      expect(osRun("-C", "inner", "status", "--short").code).toBe(0);
      expect(osRun("-C", join(ws.dir, "inner"), "-C", "..", "log", "--oneline").code).toBe(0);
      expect(osRun(`--git-dir=${join(ws.dir, ".git")}`, "log", "--oneline").code).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
      rmSync(join(ws.dir, "inner"), { recursive: true, force: true });
    }
  });

  it("a `!` alias, an alias to a denied command and a textconv driver are refused, naming the key", () => {
    runSync("git", ["config", "alias.x", `!${join(ws.dir, "evil.sh")}`], ws.dir);
    const shell = osRun("x");
    expect(existsSync(pwned())).toBe(false);
    expect(shell.code).toBe(3);
    expect(shell.stderr).toContain("alias.x");
    runSync("git", ["config", "--unset", "alias.x"], ws.dir);
    runSync("git", ["config", "alias.p", "push"], ws.dir);
    const push = osRun("p", "origin");
    expect(push.code).toBe(3);
    expect(push.stderr).toContain("alias.p");
    runSync("git", ["config", "--unset", "alias.p"], ws.dir);
    writeFileSync(join(ws.dir, ".gitattributes"), "*.md diff=evil\n");
    runSync("git", ["config", "diff.evil.textconv", join(ws.dir, "evil.sh")], ws.dir);
    writeFileSync(join(ws.dir, "README.md"), "changed\n");
    try {
      const diff = osRun("diff");
      expect(existsSync(pwned())).toBe(false);
      expect(diff.code).toBe(3);
      expect(diff.stderr).toContain("diff.evil.textconv");
      // Another repository named on the command line is judged by its own configuration.
      const other = join(ws.dir, "other");
      mkdirSync(other);
      runSync("git", ["init", "-q"], other);
      writeFileSync(join(other, ".gitattributes"), "*.md diff=evil\n");
      writeFileSync(join(other, "a.md"), "one\n");
      runSync("git", ["add", "-A"], other);
      runSync("git", ["-c", "user.name=t", "-c", "user.email=t@t.invalid", "commit", "-qm", "o"], other);
      runSync("git", ["config", "diff.evil.textconv", join(ws.dir, "evil.sh")], other);
      writeFileSync(join(other, "a.md"), "two\n");
      const elsewhere = osRun("-C", other, "diff");
      expect(existsSync(pwned())).toBe(false);
      expect(elsewhere.code).toBe(3);
      expect(elsewhere.stderr).toContain("diff.evil.textconv");
    } finally {
      rmSync(join(ws.dir, ".gitattributes"));
      runSync("git", ["checkout", "README.md"], ws.dir);
    }
  });

  it("help.autocorrect does not turn a misspelt command into a denied one", () => {
    runSync("git", ["config", "help.autocorrect", "immediate"], ws.dir);
    try {
      const typo = osRun("pusj", "--dry-run");
      expect(typo.stderr + typo.stdout).not.toContain("Continuing under the assumption");
      expect((typo.json as { exit_code: number }).exit_code).not.toBe(0);
    } finally {
      runSync("git", ["config", "--unset", "help.autocorrect"], ws.dir);
    }
  });

  it("a submodule's own configuration (which cairn does not read) is never run through `git status`", () => {
    const sub = join(ws.dir, "..", `${ws.dir.split("/").pop()}-sub`);
    mkdirSync(sub);
    try {
      runSync("git", ["init", "-q"], sub);
      writeFileSync(join(sub, "a.md"), "one\n");
      runSync("git", ["add", "-A"], sub);
      runSync("git", ["-c", "user.name=t", "-c", "user.email=t@t.invalid", "commit", "-qm", "s"], sub);
      runSync("git", ["-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "sub"], ws.dir);
      runSync("git", ["commit", "-qm", "with a submodule"], ws.dir);
      const inner = join(ws.dir, "sub");
      writeFileSync(join(inner, ".gitattributes"), "*.md filter=evil\n");
      runSync("git", ["config", "filter.evil.clean", `sh -c 'touch ${pwned()}; cat'`], inner);
      writeFileSync(join(inner, "a.md"), "two\n");
      utimesSync(join(inner, "a.md"), 946_684_800, 946_684_800);
      expect(osRun("status", "--short").code).toBe(0);
      expect(existsSync(pwned())).toBe(false);
      // Asking git to go into submodules, or to run a command there, needs a person.
      for (const args of [
        ["status", "--ignore-submodules=none"],
        ["grep", "--recurse-submodules", "x"],
        ["submodule", "foreach", `touch ${pwned()}`],
      ]) {
        const refused = osRun(...args);
        expect(refused.code, args.join(" ")).toBe(3);
        expect(existsSync(pwned())).toBe(false);
      }
    } finally {
      rmSync(sub, { recursive: true, force: true });
    }
  });

  it("git commands that run a command given on the command line, or write git's configuration (the operator's or the repository's), need a person", () => {
    for (const args of [
      ["rebase", "-x", `touch ${pwned()}`, "HEAD"],
      ["bisect", "run", "sh", "-c", `touch ${pwned()}`],
      ["grep", `-O${join(ws.dir, "evil.sh")}`, "fixture"],
      ["difftool", "-y", `--extcmd=${join(ws.dir, "evil.sh")}`, "HEAD"],
      ["config", "--global", "core.pager", join(ws.dir, "evil.sh")],
      ["config", "--file", join(env.HOME as string, ".gitconfig"), "core.pager", join(ws.dir, "evil.sh")],
      ["filter-branch", "--tree-filter", `touch ${pwned()}`, "HEAD"],
      ["config", "core.fsmonitor", join(ws.dir, "evil.sh")],
      ["config", "alias.x", `!${join(ws.dir, "evil.sh")}`],
      // The program attached to its flag, or closing a cluster of flags: a path is no flag letter.
      ["rebase", `-x${join(ws.dir, "evil.sh")}`, "HEAD"],
      ["grep", `-iO${join(ws.dir, "evil.sh")}`, "fixture"],
      ["grep", "-n", `-wO${join(ws.dir, "evil.sh")}`, "fixture"],
      ["difftool", `-yx${join(ws.dir, "evil.sh")}`, "HEAD"],
      ["clone", `-qu${join(ws.dir, "evil.sh")}`, ws.dir],
      // git's internal helpers, which `git submodule`, `git bisect` and `git difftool` run.
      ["submodule--helper", "foreach", `touch ${pwned()}`],
      ["--super-prefix", "x/", "submodule--helper", "foreach", `touch ${pwned()}`],
      ["bisect--helper", "--bisect-run", "sh", "-c", `touch ${pwned()}`],
      ["difftool--helper", "a", "b"],
      // The operator's configuration written another way, and a schedule of the user's.
      ["maintenance", "register"],
      ["maintenance", "start", "--scheduler=crontab"],
    ]) {
      const refused = osRun(...args);
      expect(refused.code, args.join(" ")).toBe(3);
      expect(refused.stderr).toContain("needs a person");
      expect(existsSync(pwned())).toBe(false);
    }
    // Nothing was written to the repository's configuration, and reading it is not refused.
    expect(spawnSync("git", ["config", "--get", "core.fsmonitor"], { cwd: ws.dir }).status).toBe(1);
    expect(osRun("config", "--get", "user.name").code).toBe(0);
    expect(
      spawnSync("git", ["config", "--global", "--get", "maintenance.repo"], {
        cwd: ws.dir,
        env: { ...process.env, ...env },
      }).status,
    ).toBe(1);
  });

  it("git without anything planted runs as before", () => {
    const log = osRun("log", "--oneline");
    expect(log.code).toBe(0);
    expect((log.json as { stdout: string }).stdout).toContain("base");
  });
});
