import {
  chmodSync,
  existsSync,
  mkdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { evidenceOf } from "../helpers/evidence.js";
import { forgeIndexEntry, gitRepo, gitWorkspace } from "../helpers/goals.js";
import {
  addAgent,
  arrange,
  cairn,
  cairnAsync,
  initWorkspace,
  runSync,
  scratchDir,
} from "../helpers/workspace.js";

// What an agent whose work a check judges can reach to make the check pass anyway: the check's
// environment, and the tree the tick is earned on. The store only keeps the tick's record, so
// these run on SQLite alone; tasks-verify.test.ts, which runs on both stores, keeps the rest.

describe("checks run by the agent they check", () => {
  let ws: { dir: string; cleanup: () => void };
  beforeEach(() => {
    ws = initWorkspace();
  });
  afterEach(() => ws.cleanup());

  describe("a check run by the agent it checks", () => {
    it("never passes a failing npm test through the agent's variables (NODE_OPTIONS, npm_config_script_shell, HOME)", () => {
      writeFileSync(
        join(ws.dir, "package.json"),
        `${JSON.stringify({ name: "fixture", version: "1.0.0", scripts: { test: "node check.js" } })}\n`,
      );
      writeFileSync(join(ws.dir, "check.js"), "process.exit(1)\n");
      const outside = scratchDir("cairn-cheat-");
      const cheat = join(outside.dir, "cheat.cjs");
      writeFileSync(cheat, "const exit=process.exit;process.exit=()=>exit(0);\n");
      // A home of the agent's own, whose user configuration npm reads (~/.npmrc).
      writeFileSync(join(outside.dir, ".npmrc"), "script-shell=/bin/true\n");
      const agent = { CAIRN_AGENT: addAgent(ws.dir, "bob", "builder").token };
      const criterion = JSON.stringify({ text: "tests pass", verify: ["npm", "test", "--silent"] });
      const cheats = [
        { NODE_OPTIONS: `--require ${cheat}` },
        { npm_config_script_shell: "/bin/true" },
        { HOME: outside.dir },
      ];
      try {
        for (const [n, variables] of cheats.entries()) {
          const id = `T-${n + 1}`;
          expect(arrange(ws.dir, ["task", "add", "t", "--criteria", criterion]).code).toBe(0);
          expect(arrange(ws.dir, ["task", "claim", id], { env: agent }).code).toBe(0);
          // NODE_OPTIONS reaches cairn's own process too, and its exit code: the record decides.
          cairn(ws.dir, ["task", "check", id, "--all"], { env: { ...agent, ...variables } });
          const shown = cairn(ws.dir, ["task", "show", id, "--json"]).json as {
            criteria: { checked: boolean }[];
          };
          expect(shown.criteria[0]?.checked, JSON.stringify(variables)).toBe(false);
        }
        // The definition of done, run at finish, is a check too.
        writeFileSync(
          join(ws.dir, ".cairn", "cairn.toml"),
          '[done]\nshortcuts = ["tests"]\n[shortcuts.tests]\nargv = ["npm", "test", "--silent"]\neffect = "read"\n',
        );
        const id = `T-${cheats.length + 1}`;
        expect(arrange(ws.dir, ["task", "add", "t", "--criteria", "one"]).code).toBe(0);
        expect(arrange(ws.dir, ["task", "claim", id], { env: agent }).code).toBe(0);
        expect(cairn(ws.dir, ["task", "check", id, "--n", "1"], { env: agent }).code).toBe(0);
        for (const variables of [{ npm_config_script_shell: "/bin/true" }, { HOME: outside.dir }]) {
          const finished = cairn(ws.dir, ["task", "finish", id], { env: { ...agent, ...variables } });
          expect(finished.code, JSON.stringify(variables)).toBe(3);
          expect(finished.stderr).toContain("definition of done: shortcut tests failed");
        }
      } finally {
        outside.cleanup();
      }
    });
  });

  describe("a check run by the agent it checks, beyond npm", () => {
    it("never passes a failing check through a shell function, git's configuration or make's variables", () => {
      writeFileSync(join(ws.dir, "check.js"), "process.exit(1)\n");
      writeFileSync(join(ws.dir, "Makefile"), "test:\n\tnode check.js\n");
      const outside = scratchDir("cairn-cheat-");
      mkdirSync(join(outside.dir, "git"));
      writeFileSync(join(outside.dir, "git", "config"), "[cheat]\n\tok = yes\n");
      writeFileSync(join(outside.dir, "evil.mk"), "SHELL := /bin/true\n");
      const agent = { CAIRN_AGENT: addAgent(ws.dir, "bob", "builder").token };
      // Each check fails as set; each variable, were it to reach the check, would make it pass.
      const cheats: [string[], Record<string, string>][] = [
        [["bash", "-c", "node check.js"], { "BASH_FUNC_node%%": "() { exit 0; }" }],
        [
          ["git", "config", "--get", "cheat.ok"],
          { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "cheat.ok", GIT_CONFIG_VALUE_0: "yes" },
        ],
        [["git", "config", "--get", "cheat.ok"], { GIT_CONFIG_PARAMETERS: "'cheat.ok'='yes'" }],
        [["git", "config", "--get", "cheat.ok"], { XDG_CONFIG_HOME: outside.dir }],
        [["git", "config", "--get", "cheat.ok"], { GIT_CONFIG_GLOBAL: join(outside.dir, "git", "config") }],
        [["make", "-s", "test"], { MAKEFILES: join(outside.dir, "evil.mk") }],
        [["make", "-s", "test"], { MAKEFLAGS: "SHELL=/bin/true" }],
      ];
      try {
        for (const [n, [verify, variables]] of cheats.entries()) {
          const id = `T-${n + 1}`;
          const criterion = JSON.stringify({ text: "the check passes", verify });
          expect(arrange(ws.dir, ["task", "add", "t", "--criteria", criterion]).code).toBe(0);
          expect(arrange(ws.dir, ["task", "claim", id], { env: agent }).code).toBe(0);
          // The same check, run as set, fails: what follows is the variable's doing alone.
          const cheated = cairn(ws.dir, ["task", "check", id, "--all", "--json"], {
            env: { ...agent, ...variables },
          });
          expect(cheated.json, JSON.stringify(variables)).toMatchObject({ unchecked: [1] });
        }
      } finally {
        outside.cleanup();
      }
    });
  });
  describe("a test runner's own variables", () => {
    it("never passes failing node, python or perl tests through variables that make their runner skip or pass them", () => {
      writeFileSync(
        join(ws.dir, "fails.test.js"),
        "require('node:test')('fails',()=>require('node:assert').strictEqual(1,2));\n",
      );
      writeFileSync(join(ws.dir, "fails.py"), "assert 1 == 2\n");
      mkdirSync(join(ws.dir, "t"));
      writeFileSync(join(ws.dir, "t", "fails.t"), 'print "1..1\\nnot ok 1\\n";\n');
      const outside = scratchDir("cairn-cheat-");
      writeFileSync(
        join(outside.dir, "Pass.pm"),
        'package Pass; BEGIN { print "1..1\\nok 1\\n"; exit 0 } 1;\n',
      );
      writeFileSync(join(outside.dir, "perl"), '#!/bin/sh\nprintf "1..1\\nok 1\\n"\n');
      chmodSync(join(outside.dir, "perl"), 0o755);
      const agent = { CAIRN_AGENT: addAgent(ws.dir, "bob", "builder").token };
      // Each check fails as set; its variable, were it to reach the check, would make it pass.
      const checks = [
        ["node", "--test", "fails.test.js"],
        ["python3", "fails.py"],
        ["prove", "t/fails.t"],
      ];
      const variables = {
        NODE_TEST_CONTEXT: "child",
        PYTHONOPTIMIZE: "1",
        HARNESS_PERL_SWITCHES: `-I${outside.dir} -MPass`,
        HARNESS_PERL: join(outside.dir, "perl"),
      };
      try {
        const criteria = checks.flatMap((verify) => [
          "--criteria",
          JSON.stringify({ text: "fails", verify }),
        ]);
        expect(arrange(ws.dir, ["task", "add", "t", ...criteria]).code).toBe(0);
        expect(arrange(ws.dir, ["task", "claim", "T-1"], { env: agent }).code).toBe(0);
        const cheated = cairn(ws.dir, ["task", "check", "T-1", "--all", "--json"], {
          env: { ...agent, ...variables },
        });
        expect(cheated.json).toMatchObject({ unchecked: [1, 2, 3] });
      } finally {
        outside.cleanup();
      }
    });
  });

  it("keeps the credentials of whoever runs a check out of its evidence, which every agent reads", () => {
    // A writer plants a check that prints its environment; the owner runs it with its own secrets.
    const writer = { CAIRN_AGENT: addAgent(ws.dir, "mallory", "builder").token };
    const criterion = JSON.stringify({ text: "env", verify: ["sh", "-c", "env; echo end"] });
    expect(arrange(ws.dir, ["task", "add", "t", "--criteria", criterion], { env: writer }).code).toBe(0);
    const secrets = {
      GITHUB_TOKEN: "ghp_0123456789abcdefghij",
      AWS_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG/bPxRfiCY",
      DATABASE_URL: "postgres://app:hunter2hunter2@db.internal/app",
    };
    expect(arrange(ws.dir, ["task", "claim", "T-1"]).code).toBe(0);
    cairn(ws.dir, ["task", "check", "T-1", "--all"], { env: { ...secrets, GREETING: "hello-there-friend" } });
    const tail = evidenceOf("T-1", ws.dir)?.output_tail ?? "";
    // The output is kept (a variable that is no credential shows), the credentials are not.
    expect(tail).toContain("GREETING=hello-there-friend");
    expect(tail).toContain("GITHUB_TOKEN=[redacted]");
    for (const secret of [...Object.values(secrets), "hunter2hunter2"]) expect(tail).not.toContain(secret);
  });
});

describe("a tick earned on one tree", () => {
  let repo: { dir: string; cleanup: () => void };
  beforeEach(() => {
    repo = gitWorkspace({ "check.js": "process.exit(0)\n" });
  });
  afterEach(() => repo.cleanup());

  const commitAll = (message: string) => {
    runSync("git", ["add", "-A"], repo.dir);
    runSync("git", ["commit", "-qm", message], repo.dir);
  };

  /** `finish` refuses T-1: its one tick was earned on a tree the checkout no longer holds. */
  function expectRefusedAsStale(agent: { CAIRN_AGENT: string }): void {
    const finished = cairn(repo.dir, ["task", "finish", "T-1"], { env: agent });
    expect(finished.code).toBe(3);
    expect(finished.stderr).toContain("criterion 1 was checked on another tree");
  }

  /** T-1, claimed by bob, whose one criterion runs `argv` in the checkout. */
  function claimedBy(argv: string[]): { CAIRN_AGENT: string } {
    const agent = { CAIRN_AGENT: addAgent(repo.dir, "bob", "builder").token };
    const criterion = JSON.stringify({ text: "the check passes", verify: argv });
    expect(arrange(repo.dir, ["task", "add", "t", "--criteria", criterion]).code).toBe(0);
    expect(arrange(repo.dir, ["task", "claim", "T-1"], { env: agent }).code).toBe(0);
    return agent;
  }

  it("does not finish a task edited after its check until the check runs again; a commit is no edit", () => {
    const agent = claimedBy(["node", "check.js"]);
    expect(cairn(repo.dir, ["task", "check", "T-1", "--all"], { env: agent }).code).toBe(0);
    expect(cairn(repo.dir, ["task", "show", "T-1"]).stdout).toContain("[x] 1. the check passes");
    // One more change after the tick, and it breaks the check.
    writeFileSync(join(repo.dir, "check.js"), "process.exit(1)\n");
    // Read as it is, the tick is not shown as met: show says why, as finish will.
    const shown = cairn(repo.dir, ["task", "show", "T-1", "--json"]);
    expect(shown.json).toMatchObject({
      criteria: [{ n: 1, checked: true, stale: expect.stringContaining("was checked on another tree") }],
    });
    expect(cairn(repo.dir, ["task", "show", "T-1"]).stdout).toContain("[~] 1. the check passes");
    expectRefusedAsStale(agent);
    // --all takes the stale tick again, and this time the command fails.
    const again = cairn(repo.dir, ["task", "check", "T-1", "--all", "--json"], { env: agent });
    expect(again.json).toMatchObject({ results: [{ n: 1, checked: false }], unchecked: [1] });
    writeFileSync(join(repo.dir, "check.js"), "process.exit(0) // fixed\n");
    writeFileSync(join(repo.dir, "notes.txt"), "a new file is part of the tree\n");
    expect(cairn(repo.dir, ["task", "check", "T-1", "--all"], { env: agent }).code).toBe(0);
    // Committing the work checked is no change to it.
    runSync("git", ["add", "-A"], repo.dir);
    runSync("git", ["commit", "-qm", "the work"], repo.dir);
    const held = cairn(repo.dir, ["task", "show", "T-1", "--json"]).json as { criteria: object[] };
    expect(held.criteria[0]).not.toHaveProperty("stale");
    expect(cairn(repo.dir, ["task", "finish", "T-1"], { env: agent }).code).toBe(0);
  });

  it("records the commit a check ran on, not one the check made", () => {
    const agent = claimedBy(["sh", "-c", "git commit -q --allow-empty -m made-by-the-check"]);
    const before = runSync("git", ["rev-parse", "HEAD"], repo.dir).trim();
    expect(cairn(repo.dir, ["task", "check", "T-1", "--all"], { env: agent }).code).toBe(0);
    expect(runSync("git", ["rev-parse", "HEAD"], repo.dir).trim()).not.toBe(before);
    expect(evidenceOf("T-1", repo.dir)?.git_head).toBe(before);
  });

  it("holds a tick to its tree in a checkout whose .gitignore names cairn's folder, as many do", () => {
    writeFileSync(join(repo.dir, ".gitignore"), ".cairn/\n");
    runSync("git", ["add", "-A"], repo.dir);
    runSync("git", ["commit", "-qm", "ignore cairn's state"], repo.dir);
    const agent = claimedBy(["node", "check.js"]);
    expect(cairn(repo.dir, ["task", "check", "T-1", "--all"], { env: agent }).code).toBe(0);
    expect(evidenceOf("T-1", repo.dir)?.tree).toMatch(/^[0-9a-f]{40,64}$/);
    writeFileSync(join(repo.dir, "check.js"), "process.exit(1)\n");
    expectRefusedAsStale(agent);
  });

  it("sees an edit made while git was told to look away (assume-unchanged, skip-worktree)", () => {
    const agent = claimedBy(["node", "check.js"]);
    commitAll("base");
    expect(cairn(repo.dir, ["task", "check", "T-1", "--all"], { env: agent }).code).toBe(0);
    for (const mark of ["--assume-unchanged", "--skip-worktree"]) {
      runSync("git", ["update-index", mark, "check.js"], repo.dir);
      writeFileSync(join(repo.dir, "check.js"), `process.exit(1) // ${mark}\n`);
      expect(runSync("git", ["status", "--porcelain"], repo.dir)).toBe("");
      expectRefusedAsStale(agent);
      runSync("git", ["update-index", mark.replace("--", "--no-"), "check.js"], repo.dir);
    }
  });

  it("sees an edit a clean filter configured outside the tree would hide", () => {
    const agent = claimedBy(["node", "check.js"]);
    commitAll("base");
    expect(cairn(repo.dir, ["task", "check", "T-1", "--all"], { env: agent }).code).toBe(0);
    // A filter that records HEAD's version of every file, whatever the file now says.
    writeFileSync(join(repo.dir, ".git", "info", "attributes"), "* filter=hide\n");
    runSync("git", ["config", "filter.hide.clean", "git show HEAD:%f"], repo.dir);
    writeFileSync(join(repo.dir, "check.js"), "process.exit(1)\n");
    expectRefusedAsStale(agent);
  });

  it("sees an edit the checkout's index was rewritten to hide, made after the check", () => {
    const agent = claimedBy(["node", "check.js"]);
    commitAll("base");
    expect(cairn(repo.dir, ["task", "check", "T-1", "--all"], { env: agent }).code).toBe(0);
    writeFileSync(join(repo.dir, "check.js"), "process.exit(1)\n");
    forgeIndexEntry(repo.dir, "check.js", "process.exit(0)\n");
    expectRefusedAsStale(agent);
  });

  it("names the tree a check ran on, not the tree the checkout's index claims it ran on", () => {
    const agent = claimedBy(["node", "check.js"]);
    commitAll("base");
    // The index claims the failing version; the file the check runs is the passing one.
    forgeIndexEntry(repo.dir, "check.js", "process.exit(1)\n");
    expect(cairn(repo.dir, ["task", "check", "T-1", "--all"], { env: agent }).code).toBe(0);
    // The failing version, written and added as git would: the tree the index claimed all along.
    writeFileSync(join(repo.dir, "check.js"), "process.exit(1)\n");
    runSync("git", ["add", "-A"], repo.dir);
    expectRefusedAsStale(agent);
  });

  it("sees a same-size edit with its time put back, where the repository turned stat checks down", () => {
    const agent = claimedBy(["node", "check.js"]);
    commitAll("base");
    runSync("git", ["config", "core.trustctime", "false"], repo.dir);
    runSync("git", ["config", "core.checkStat", "minimal"], repo.dir);
    expect(cairn(repo.dir, ["task", "check", "T-1", "--all"], { env: agent }).code).toBe(0);
    const file = join(repo.dir, "check.js");
    const { atime, mtime } = statSync(file);
    // The index knows the file as it is now; a second later it is edited, its time put back.
    runSync("git", ["update-index", "--refresh"], repo.dir);
    runSync("sleep", ["1.1"], repo.dir);
    writeFileSync(file, "process.exit(1)\n");
    utimesSync(file, atime, mtime);
    expectRefusedAsStale(agent);
  });

  it("holds the rule, not waives it, where git cannot name the tree: at the check and at the finish", () => {
    const agent = claimedBy(["node", "check.js"]);
    // An empty repository inside the checkout makes `git add -A` fail.
    runSync("git", ["init", "-q", "empty"], repo.dir);
    const check = cairn(repo.dir, ["task", "check", "T-1", "--all", "--json"], { env: agent });
    expect(check.code).toBe(1);
    expect(check.stderr).toContain("git could not name the checkout's tree");
    expect(check.stderr).toContain("empty/");
    rmSync(join(repo.dir, "empty"), { recursive: true, force: true });
    expect(cairn(repo.dir, ["task", "check", "T-1", "--all"], { env: agent }).code).toBe(0);
    writeFileSync(join(repo.dir, "check.js"), "process.exit(1)\n");
    runSync("git", ["init", "-q", "empty"], repo.dir);
    const finished = cairn(repo.dir, ["task", "finish", "T-1"], { env: agent });
    expect(finished.code).toBe(3);
    expect(finished.stderr).toContain("the ticks cannot be held to the tree being finished");
    expect(cairn(repo.dir, ["task", "show", "T-1", "--json"]).json).toMatchObject({
      task: { status: "active" },
    });
  });

  it("lets no tick off for a tree left unnamed by moving .git aside, at the check or at the finish", () => {
    const agent = claimedBy(["node", "check.js"]);
    // Inside the scratch folder, so its cleanup takes it whatever happens.
    const aside = join(repo.dir, "git-aside");
    const moveGit = (from: string, to: string) => renameSync(from, to);
    // Checked while the checkout was no git work tree: no tree named, and none to hold it to.
    moveGit(join(repo.dir, ".git"), aside);
    expect(cairn(repo.dir, ["task", "check", "T-1", "--all"], { env: agent }).code).toBe(0);
    moveGit(aside, join(repo.dir, ".git"));
    expect(evidenceOf("T-1", repo.dir)?.tree).toBeUndefined();
    writeFileSync(join(repo.dir, "check.js"), "process.exit(1)\n");
    let finished = cairn(repo.dir, ["task", "finish", "T-1"], { env: agent });
    expect(finished.code).toBe(3);
    expect(finished.stderr).toContain("criterion 1 was checked where no tree was named");
    const again = cairn(repo.dir, ["task", "check", "T-1", "--all", "--json"], { env: agent });
    expect(again.json).toMatchObject({ results: [{ n: 1, checked: false }] });
    // Checked in the checkout, then finished with .git moved aside after one more edit.
    writeFileSync(join(repo.dir, "check.js"), "process.exit(0)\n");
    expect(cairn(repo.dir, ["task", "check", "T-1", "--all"], { env: agent }).code).toBe(0);
    writeFileSync(join(repo.dir, "check.js"), "process.exit(1)\n");
    moveGit(join(repo.dir, ".git"), aside);
    try {
      finished = cairn(repo.dir, ["task", "finish", "T-1"], { env: agent });
    } finally {
      moveGit(aside, join(repo.dir, ".git"));
    }
    expect(finished.code).toBe(3);
    expect(finished.stderr).toContain(
      "criterion 1 was checked in a git checkout, and the checkout is not one now",
    );
  });

  it("lets no tick off for a tree left unnamed by a check made while the finish ran, none ticked when it began", async () => {
    const signals = scratchDir("cairn-finish-race-");
    const started = join(signals.dir, "started");
    const go = join(signals.dir, "go");
    // The owner's definition of done, which takes a while: the window the agent works in.
    const wait = `touch ${started}; while [ ! -e ${go} ]; do sleep 0.05; done`;
    writeFileSync(
      join(repo.dir, ".cairn", "cairn.toml"),
      `[done]\nshortcuts = ["wait"]\n[shortcuts.wait]\nargv = ["sh", "-c", ${JSON.stringify(wait)}]\neffect = "read"\n`,
    );
    writeFileSync(join(repo.dir, "check.js"), "process.exit(1)\n");
    commitAll("the work, failing its check");
    const aside = join(repo.dir, "git-aside");
    try {
      const agent = claimedBy(["node", "check.js"]);
      const finish = cairnAsync(repo.dir, ["task", "finish", "T-1"], { env: agent });
      await expect.poll(() => existsSync(started), { timeout: 30_000 }).toBe(true);
      // Passed once with .git moved aside (no tree named), then put back as it was.
      renameSync(join(repo.dir, ".git"), aside);
      writeFileSync(join(repo.dir, "check.js"), "process.exit(0)\n");
      const check = cairn(repo.dir, ["task", "check", "T-1", "--all"], { env: agent });
      writeFileSync(join(repo.dir, "check.js"), "process.exit(1)\n");
      renameSync(aside, join(repo.dir, ".git"));
      expect(check.code).toBe(0);
      writeFileSync(go, "");
      const finished = await finish;
      expect(finished.code).toBe(3);
      expect(finished.stderr).toContain("criterion 1 was checked where no tree was named");
    } finally {
      if (existsSync(aside)) renameSync(aside, join(repo.dir, ".git"));
      signals.cleanup();
    }
  });

  /**
   * The owner's definition of done, one shortcut: it starts (`started` appears), waits for `go`,
   * then runs `then`, so the agent can act while it runs.
   */
  function slowDefinitionOfDone(then: string) {
    const signals = scratchDir("cairn-done-race-");
    const started = join(signals.dir, "started");
    const go = join(signals.dir, "go");
    const gate = `touch ${started}; while [ ! -e ${go} ]; do sleep 0.05; done; ${then}`;
    writeFileSync(
      join(repo.dir, ".cairn", "cairn.toml"),
      `[done]\nshortcuts = ["gate"]\n[shortcuts.gate]\nargv = ["sh", "-c", ${JSON.stringify(gate)}]\neffect = "read"\n`,
    );
    return { signals, started, go };
  }

  it("holds the definition of done to the tree being finished: not one edited while it ran; files it adds are its output", async () => {
    // It builds (adds a file), then reads the work.
    const { signals, started, go } = slowDefinitionOfDone("touch built.txt; grep -q pass README.md");
    writeFileSync(join(repo.dir, "README.md"), "fail\n");
    commitAll("work the definition of done fails");
    try {
      const agent = claimedBy(["node", "check.js"]);
      expect(cairn(repo.dir, ["task", "check", "T-1", "--all"], { env: agent }).code).toBe(0);
      const finish = cairnAsync(repo.dir, ["task", "finish", "T-1"], { env: agent });
      await expect.poll(() => existsSync(started), { timeout: 30_000 }).toBe(true);
      // Made to pass for the run, and left so: the tick's tree was named before it ran.
      writeFileSync(join(repo.dir, "README.md"), "pass\n");
      writeFileSync(go, "");
      const finished = await finish;
      expect(finished.code).toBe(3);
      expect(finished.stderr).toContain("definition of done: the checkout changed while its shortcuts ran");
      // On the checkout as it is, checked again, it passes; the file it adds is its output.
      expect(cairn(repo.dir, ["task", "check", "T-1", "--all"], { env: agent }).code).toBe(0);
      expect(cairn(repo.dir, ["task", "finish", "T-1"], { env: agent }).code).toBe(0);
    } finally {
      signals.cleanup();
    }
  });

  it("holds the ticks to the tree with the files added while the definition of done ran, not to the tree before them", async () => {
    // It reads the code: `./gate` is gate.js once there is one, before gate/index.js.
    const { signals, started, go } = slowDefinitionOfDone(`node -e "require('./gate')"`);
    mkdirSync(join(repo.dir, "gate"));
    writeFileSync(join(repo.dir, "gate", "index.js"), "process.exit(1)\n");
    commitAll("work the definition of done fails");
    try {
      const agent = claimedBy(["node", "check.js"]);
      expect(cairn(repo.dir, ["task", "check", "T-1", "--all"], { env: agent }).code).toBe(0);
      const finish = cairnAsync(repo.dir, ["task", "finish", "T-1"], { env: agent });
      await expect.poll(() => existsSync(started), { timeout: 30_000 }).toBe(true);
      // Added for the run, taken away after it.
      writeFileSync(join(repo.dir, "gate.js"), "process.exit(0)\n");
      writeFileSync(go, "");
      const finished = await finish;
      rmSync(join(repo.dir, "gate.js"));
      expect(finished.code).toBe(3);
      expect(finished.stderr).toContain("criterion 1 was checked on another tree");
      expect(cairn(repo.dir, ["task", "show", "T-1", "--json"]).json).toMatchObject({
        task: { status: "active" },
      });
    } finally {
      signals.cleanup();
    }
  });

  it("counts a tree the checks themselves changed (a build's output, rewritten by each) as the one judged", () => {
    const build = ["node", "-e", "require('fs').writeFileSync('out.txt', String(performance.now()))"];
    const agent = claimedBy(build);
    const second = ["task", "criterion", "T-1", "--text", "it builds again"];
    for (const word of build) second.push("--verify", word);
    expect(arrange(repo.dir, second, { env: agent }).code).toBe(0);
    expect(cairn(repo.dir, ["task", "check", "T-1", "--all"], { env: agent }).code).toBe(0);
    const evidence = evidenceOf("T-1", repo.dir);
    expect(evidence?.tree).toMatch(/^[0-9a-f]{40,64}$/);
    expect(evidence?.tree_after).toMatch(/^[0-9a-f]{40,64}$/);
    expect(evidence?.tree_after).not.toBe(evidence?.tree);
    expect(cairn(repo.dir, ["task", "finish", "T-1"], { env: agent }).code).toBe(0);
  });

  it("does not count a tree where a check changed a file that was there before it ran", () => {
    const agent = claimedBy(["node", "check.js"]);
    // The holder's own second criterion puts the broken code back once the first has passed.
    const breaks = ["node", "-e", "require('fs').writeFileSync('check.js', 'process.exit(1)\\n')"];
    const second = ["task", "criterion", "T-1", "--text", "tidy up"];
    for (const word of breaks) second.push("--verify", word);
    expect(arrange(repo.dir, second, { env: agent }).code).toBe(0);
    // The second, during whose run a file there before changed, earns no tick.
    const checked = cairn(repo.dir, ["task", "check", "T-1", "--all", "--json"], { env: agent });
    expect(checked.code).toBe(1);
    expect(checked.json).toMatchObject({
      results: [
        { n: 1, checked: true },
        { n: 2, checked: false, why: expect.stringContaining("the checkout changed while it ran") },
      ],
    });
    expect(evidenceOf("T-1", repo.dir)?.tree_after).toBeUndefined();
    expectRefusedAsStale(agent);
  });

  it("does not count a tree the agent edited while its check ran", async () => {
    const signals = scratchDir("cairn-race-");
    const started = join(signals.dir, "started");
    const go = join(signals.dir, "go");
    // Reads the code, says so, then waits before it exits: the agent edits the checkout meanwhile.
    const script = [
      "const fs = require('fs');",
      "const ok = fs.readFileSync('check.js', 'utf8').includes('exit(0)');",
      `fs.writeFileSync(${JSON.stringify(started)}, '');`,
      `const wait = () => fs.existsSync(${JSON.stringify(go)}) ? process.exit(ok ? 0 : 1) : setTimeout(wait, 20);`,
      "wait();",
    ].join("\n");
    try {
      const agent = claimedBy(["node", "-e", script]);
      const check = cairnAsync(repo.dir, ["task", "check", "T-1", "--all"], { env: agent });
      await expect.poll(() => existsSync(started), { timeout: 30_000 }).toBe(true);
      writeFileSync(join(repo.dir, "check.js"), "process.exit(1)\n");
      writeFileSync(go, "");
      // What it read may be the tree before the edit or after it: it is evidence for neither.
      const checked = await check;
      expect(checked.code).toBe(1);
      expect(checked.stdout).toContain("the checkout changed while it ran");
      const finished = cairn(repo.dir, ["task", "finish", "T-1"], { env: agent });
      expect(finished.code).toBe(3);
      expect(finished.stderr).toContain("criterion 1 unchecked");
    } finally {
      signals.cleanup();
    }
  });

  /**
   * T-1, whose check starts, then waits until the agent has done `meanwhile` before it reads the
   * code and judges it. Returns what the check printed, once it ended.
   */
  async function checkedWhile(reads: string, meanwhile: () => void) {
    const signals = scratchDir("cairn-race-");
    const started = join(signals.dir, "started");
    const go = join(signals.dir, "go");
    // A test runner that starts, then reads the code: the agent edits the checkout in between.
    const script = [
      "const fs = require('fs');",
      `fs.writeFileSync(${JSON.stringify(started)}, '');`,
      `const wait = () => fs.existsSync(${JSON.stringify(go)}) ? ${reads} : setTimeout(wait, 20);`,
      "wait();",
    ].join("\n");
    try {
      const agent = claimedBy(["node", "-e", script]);
      const check = cairnAsync(repo.dir, ["task", "check", "T-1", "--all", "--json"], { env: agent });
      await expect.poll(() => existsSync(started), { timeout: 30_000 }).toBe(true);
      meanwhile();
      writeFileSync(go, "");
      return { agent, checked: await check };
    } finally {
      signals.cleanup();
    }
  }

  it("earns no tick when the agent made the code pass while the check ran, then put the broken code back", async () => {
    writeFileSync(join(repo.dir, "check.js"), "process.exit(1)\n");
    const { agent, checked } = await checkedWhile("require('./check.js')", () =>
      writeFileSync(join(repo.dir, "check.js"), "process.exit(0)\n"),
    );
    // Broken again, as the tree was when the check began: the pass was of another tree.
    writeFileSync(join(repo.dir, "check.js"), "process.exit(1)\n");
    expect(checked.json).toMatchObject({
      results: [{ n: 1, checked: false, why: expect.stringContaining("the checkout changed while it ran") }],
      unchecked: [1],
    });
    expect(checked.code).toBe(1);
    const finished = cairn(repo.dir, ["task", "finish", "T-1"], { env: agent });
    expect(finished.code).toBe(3);
    expect(finished.stderr).toContain("criterion 1 unchecked");
  });

  it("holds a tick to the tree with the files added while its check ran, not to the tree before them", async () => {
    mkdirSync(join(repo.dir, "impl"));
    writeFileSync(join(repo.dir, "impl", "index.js"), "process.exit(1)\n");
    // `./impl` is impl.js once there is one, before impl/index.js: a file added that the check reads.
    const { agent, checked } = await checkedWhile("require('./impl')", () =>
      writeFileSync(join(repo.dir, "impl.js"), "process.exit(0)\n"),
    );
    expect(checked.code).toBe(0);
    rmSync(join(repo.dir, "impl.js"));
    expectRefusedAsStale(agent);
    // With the file it passed with, it is the tree the check judged.
    writeFileSync(join(repo.dir, "impl.js"), "process.exit(0)\n");
    expect(cairn(repo.dir, ["task", "finish", "T-1"], { env: agent }).code).toBe(0);
  });
});

describe("a tick earned in a workspace below the top of its repository", () => {
  let repo: { dir: string; cleanup: () => void };
  let pkg: string;
  beforeEach(() => {
    // A monorepo: the workspace is made in pkg/, and its check runs code kept in shared/.
    repo = gitRepo("cairn-sub-");
    pkg = join(repo.dir, "pkg");
    mkdirSync(pkg);
    mkdirSync(join(repo.dir, "shared"));
    writeFileSync(join(repo.dir, "shared", "check.js"), "process.exit(0)\n");
    writeFileSync(join(pkg, "README.md"), "a package\n");
    runSync("git", ["add", "-A"], repo.dir);
    runSync("git", ["commit", "-qm", "base"], repo.dir);
    expect(arrange(pkg, ["init"]).code).toBe(0);
  });
  afterEach(() => repo.cleanup());

  it("does not finish on a tick whose check read a file above the workspace, edited since", () => {
    const agent = { CAIRN_AGENT: addAgent(pkg, "bob", "builder").token };
    const criterion = JSON.stringify({
      text: "the shared check passes",
      verify: ["node", "../shared/check.js"],
    });
    expect(arrange(pkg, ["task", "add", "t", "--criteria", criterion]).code).toBe(0);
    expect(arrange(pkg, ["task", "claim", "T-1"], { env: agent }).code).toBe(0);
    const checked = "process.exit(0) // edited, not added\n";
    writeFileSync(join(repo.dir, "shared", "check.js"), checked);
    expect(cairn(pkg, ["task", "check", "T-1", "--all"], { env: agent }).code).toBe(0);
    // The tree the tick names holds the file the check ran, not the version the index had.
    const tree = evidenceOf("T-1", pkg)?.tree as string;
    expect(runSync("git", ["cat-file", "-p", `${tree}:shared/check.js`], repo.dir)).toBe(checked);
    writeFileSync(join(repo.dir, "shared", "check.js"), "process.exit(1)\n");
    const finished = cairn(pkg, ["task", "finish", "T-1"], { env: agent });
    expect(finished.code).toBe(3);
    expect(finished.stderr).toContain("criterion 1 was checked on another tree");
  });

  it("names the checkout's tree when the workspace is reached through a link", () => {
    // The link sits in a folder of its own: git names the index `../.git/index` from pkg/, and read
    // from the link's path that is a `.git` beside the link, where cairn's own index was written.
    const beside = scratchDir("cairn-sub-link-");
    const link = join(beside.dir, "pkg");
    symlinkSync(pkg, link);
    try {
      const env = { CAIRN_DIR: link };
      const agent = { ...env, CAIRN_AGENT: addAgent(pkg, "bob", "builder").token };
      const criterion = JSON.stringify({
        text: "the shared check passes",
        verify: ["node", "../shared/check.js"],
      });
      expect(arrange(pkg, ["task", "add", "t", "--criteria", criterion], { env }).code).toBe(0);
      expect(arrange(pkg, ["task", "claim", "T-1"], { env: agent }).code).toBe(0);
      const checked = cairn(pkg, ["task", "check", "T-1", "--all"], { env: agent });
      expect(checked.code, checked.stderr).toBe(0);
      const tree = evidenceOf("T-1", pkg)?.tree as string;
      expect(runSync("git", ["cat-file", "-t", tree], repo.dir).trim()).toBe("tree");
      expect(existsSync(join(beside.dir, ".git"))).toBe(false);
    } finally {
      beside.cleanup();
    }
  });
});
