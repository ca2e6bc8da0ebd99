import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { portableCairn } from "../helpers/portable.js";
import {
  addAgent,
  arrange,
  CAIRN_BIN,
  cairn,
  cairnAsync,
  cleanEnv,
  initWorkspace,
  REPO_ROOT,
  runSync,
  STORE_UNDER_TEST,
  scratchDir,
  uniqueName,
} from "../helpers/workspace.js";

let scratch: { dir: string; cleanup: () => void };
beforeEach(() => {
  scratch = scratchDir();
});
afterEach(() => scratch.cleanup());

describe("finding the workspace", () => {
  it("walks up from a nested directory like git", () => {
    expect(arrange(scratch.dir, ["init"]).code).toBe(0);
    const nested = join(scratch.dir, "a", "b", "c");
    mkdirSync(nested, { recursive: true });
    const status = cairn(nested, ["status", "--json"]);
    expect(status.code).toBe(0);
    expect((status.json as { workspace: { root: string } }).workspace.root).toBe(scratch.dir);
  });

  it("honours CAIRN_DIR over the working directory", () => {
    const pinned = join(scratch.dir, "pinned");
    const elsewhere = join(scratch.dir, "elsewhere");
    mkdirSync(pinned);
    mkdirSync(elsewhere);
    expect(arrange(pinned, ["init"]).code).toBe(0);
    expect(arrange(elsewhere, ["init"]).code).toBe(0);
    const status = cairn(elsewhere, ["status", "--json"], { env: { CAIRN_DIR: pinned } });
    expect((status.json as { workspace: { root: string } }).workspace.root).toBe(pinned);
  });

  it("resolves a linked git worktree to its main checkout's workspace", () => {
    const main = join(scratch.dir, "main");
    mkdirSync(main);
    runSync("git", ["init", "-q", "-b", "main"], main);
    runSync(
      "git",
      ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "--allow-empty", "-m", "root"],
      main,
    );
    expect(arrange(main, ["init"]).code).toBe(0);
    const tree = join(scratch.dir, "feature");
    runSync("git", ["worktree", "add", "-q", tree, "-b", "feature"], main);
    mkdirSync(join(tree, "src"));
    const status = cairn(join(tree, "src"), ["status", "--json"]);
    expect(status.code).toBe(0);
    expect((status.json as { workspace: { root: string } }).workspace.root).toBe(main);
  });

  it("resolves a linked worktree's package folder to the workspace made in that package of the main checkout", () => {
    // A monorepo whose workspace is made in pkg/: the worktree's pkg/ is that same package.
    const main = join(scratch.dir, "main");
    mkdirSync(join(main, "pkg"), { recursive: true });
    writeFileSync(join(main, "pkg", "README.md"), "a package\n");
    runSync("git", ["init", "-q", "-b", "main"], main);
    runSync("git", ["add", "-A"], main);
    runSync("git", ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "root"], main);
    expect(arrange(join(main, "pkg"), ["init"]).code).toBe(0);
    const tree = join(scratch.dir, "feature");
    runSync("git", ["worktree", "add", "-q", tree, "-b", "feature"], main);
    mkdirSync(join(tree, "pkg", "src"));
    for (const cwd of [join(tree, "pkg"), join(tree, "pkg", "src")]) {
      const status = cairn(cwd, ["status", "--json"]);
      expect(status.code, cwd).toBe(0);
      expect((status.json as { workspace: { root: string } }).workspace.root).toBe(join(main, "pkg"));
    }
    // Above the package, as in the main checkout, no workspace serves.
    expect(cairn(tree, ["status", "--json"]).code).toBe(4);
  });

  it("follows a `.git` file to another workspace only when that repository records this worktree", () => {
    const other = join(scratch.dir, "other");
    mkdirSync(other);
    expect(arrange(other, ["init"]).code).toBe(0);
    // Laid by hand (an unpacked archive, an agent's scratch folder): a worktree's files, pointing at
    // a folder that is not even a repository, with no record there of this worktree.
    const planted = join(scratch.dir, "planted");
    mkdirSync(join(planted, "fake"), { recursive: true });
    writeFileSync(join(planted, ".git"), "gitdir: ./fake\n");
    writeFileSync(join(planted, "fake", "commondir"), `${join(other, ".git")}\n`);
    writeFileSync(join(planted, "fake", "gitdir"), `${join(other, "elsewhere", ".git")}\n`);
    const status = cairn(planted, ["status", "--json"]);
    expect(status.code).toBe(4);
    expect(status.stdout).not.toContain(other);
  });

  it("falls back to the home workspace, and says to run init when there is none", () => {
    const home = join(scratch.dir, "home");
    const project = join(scratch.dir, "project");
    mkdirSync(project);
    const none = cairn(project, ["status"], { env: { CAIRN_HOME: home } });
    expect(none.code).toBe(4);
    expect(none.stderr).toContain("cairn init");
    expect(cairn(project, ["init", "--home"], { env: { CAIRN_HOME: home } }).code).toBe(0);
    const status = cairn(project, ["status", "--json"], { env: { CAIRN_HOME: home } });
    expect(status.code).toBe(0);
    expect((status.json as { workspace: { kind: string; root: string } }).workspace).toMatchObject({
      kind: "home",
      root: home,
    });
  });

  it("names a workspace this user cannot read, rather than serving the one above it", () => {
    expect(arrange(scratch.dir, ["init"]).code).toBe(0);
    expect(arrange(scratch.dir, ["task", "add", "the outer board's task"]).code).toBe(0);
    const inner = join(scratch.dir, uniqueName("inner"));
    mkdirSync(inner);
    expect(arrange(inner, ["init"]).code).toBe(0);
    // Root ignores file modes, so as root the command runs as an unprivileged user, from a
    // world-readable copy of the build; anyone else is kept out by the mode alone.
    const asRoot = process.getuid?.() === 0;
    const portable = asRoot ? portableCairn() : undefined;
    chmodSync(scratch.dir, 0o755);
    chmodSync(inner, 0o755);
    chmodSync(join(inner, ".cairn"), asRoot ? 0o700 : 0o000);
    try {
      const run = spawnSync(process.execPath, [portable?.bin ?? CAIRN_BIN, "task", "list", "--json"], {
        cwd: inner,
        env: cleanEnv(),
        encoding: "utf8",
        timeout: 30_000,
        killSignal: "SIGKILL",
        ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
      });
      expect(run.status).toBe(1);
      expect(run.stderr).toContain(
        `the cairn workspace in ${join(inner, ".cairn")} cannot be read by this user`,
      );
      expect(run.stdout).not.toContain("outer board");
    } finally {
      chmodSync(join(inner, ".cairn"), 0o755);
      portable?.cleanup();
    }
  });

  it("init writes the database, a commented cairn.toml and a .gitignore for local state", () => {
    const init = cairn(scratch.dir, ["init", "--json"]);
    expect(init.code).toBe(0);
    expect(readFileSync(join(scratch.dir, ".cairn", "cairn.toml"), "utf8")).toContain("[workspace]");
    expect(readFileSync(join(scratch.dir, ".cairn", ".gitignore"), "utf8")).toContain("cairn.db");
    expect(cairn(scratch.dir, ["init"]).code).toBe(5);
  });

  // An init killed (kill -9) between creating the database file and committing its schema, which
  // comes in one transaction, leaves this: a database with nothing in it. 3 inits in 30 killed
  // at a random point left it, and the workspace was stuck: every command refused it, init said
  // one already existed.
  it.runIf(STORE_UNDER_TEST === "sqlite")(
    "an init killed before its schema was committed leaves no stuck workspace: init again makes it",
    () => {
      mkdirSync(join(scratch.dir, ".cairn"));
      const blank = new Database(join(scratch.dir, ".cairn", "cairn.db"));
      blank.pragma("journal_mode = WAL");
      blank.close();
      const stuck = cairn(scratch.dir, ["status"]);
      expect(stuck.code).toBe(1);
      expect(stuck.stderr).toContain("an init here was stopped before it made the workspace");
      expect(stuck.stderr).toContain("run `cairn init` here again");
      const again = cairn(scratch.dir, ["init", "--json"]);
      expect(again.code, again.stderr).toBe(0);
      expect(again.json).toMatchObject({ joined: false });
      expect(cairn(scratch.dir, ["task", "add", "works"]).code).toBe(0);
      // A database holding anything is a workspace (or not cairn's): never taken over.
      expect(cairn(scratch.dir, ["init"]).code).toBe(5);
    },
  );

  it("of many inits at once in one folder, one makes the workspace and the rest are refused", async () => {
    // Three rounds, each in a folder of its own: a refused init once took back the folder the
    // winner's configuration was in, in one race of three on PostgreSQL.
    for (const round of ["one", "two", "three"]) {
      const folder = join(scratch.dir, uniqueName(round));
      mkdirSync(folder);
      const runs = await Promise.all(Array.from({ length: 6 }, () => cairnAsync(folder, ["init", "--json"])));
      expect(runs.map((run) => run.code).sort()).toEqual([0, 5, 5, 5, 5, 5]);
      expect(existsSync(join(folder, ".cairn", "cairn.toml"))).toBe(true);
      expect(cairn(folder, ["status", "--json"]).code).toBe(0);
    }
  });

  it("init says plainly when .cairn is a file or a symlink to nothing", () => {
    const file = join(scratch.dir, "file");
    mkdirSync(file);
    writeFileSync(join(file, ".cairn"), "not a folder");
    const overFile = cairn(file, ["init"]);
    expect(overFile.code).toBe(1);
    expect(overFile.stderr).toContain("is not a directory");
    expect(overFile.stderr).not.toContain("EEXIST");
    const dangling = join(scratch.dir, "dangling");
    mkdirSync(dangling);
    symlinkSync(join(scratch.dir, "nowhere", "state"), join(dangling, ".cairn"));
    const overLink = cairn(dangling, ["init"]);
    expect(overLink.code).toBe(1);
    expect(overLink.stderr).toContain("symlink");
    expect(overLink.stderr).not.toContain("ENOENT");
    expect(cairn(dangling, ["import", join(scratch.dir, "missing.jsonl")]).code).not.toBe(0);
  });

  it("the state .gitignore leaves out every local file, so `git add -A` commits only what is meant to be shared", () => {
    expect(spawnSync("git", ["init", "-q"], { cwd: scratch.dir }).status).toBe(0);
    cairn(scratch.dir, ["init"]);
    arrange(scratch.dir, ["task", "add", "audited"]);
    const state = join(scratch.dir, ".cairn");
    // What the daemon, agent runs and audit rotation leave there.
    mkdirSync(join(state, "logs", "agents", "nightly"), { recursive: true });
    writeFileSync(join(state, "logs", "agents", "nightly", "run-1.log"), "captured output");
    writeFileSync(join(state, "daemon.pid"), "1");
    writeFileSync(join(state, "audit-20260101T000000Z.jsonl"), "{}");
    writeFileSync(join(state, "audit.next"), "{}");
    mkdirSync(join(state, "agents", "nightly"), { recursive: true });
    writeFileSync(join(state, "agents", "nightly", "agent.toml"), '[agent]\nname = "nightly"\n');
    const status = spawnSync("git", ["status", "--porcelain", "--untracked-files=all"], {
      cwd: scratch.dir,
      encoding: "utf8",
    });
    expect(status.stdout.split("\n").filter(Boolean).sort()).toEqual([
      "?? .cairn/.gitignore",
      "?? .cairn/agents/nightly/agent.toml",
      "?? .cairn/cairn.toml",
    ]);
  });

  it("reports a broken cairn.toml naming the file", () => {
    arrange(scratch.dir, ["init"]);
    writeFileSync(join(scratch.dir, ".cairn", "cairn.toml"), "[roles.builder]\ngrant = 'sideways'\n");
    const status = cairn(scratch.dir, ["status"]);
    expect(status.code).toBe(2);
    expect(status.stderr).toContain("cairn.toml");
    expect(status.stderr).toContain("roles.builder.grant");
  });

  it("quotes a hostile cairn.toml truncated in its error, never the whole line", () => {
    arrange(scratch.dir, ["init"]);
    const configPath = join(scratch.dir, ".cairn", "cairn.toml");
    const huge = "y".repeat(5 * 1024 * 1024);
    for (const text of [
      `name = "${huge}" junk\n`,
      `[roles.b]\ngrant = "\x1b[31m${huge}"\n`,
      `[roles.b]\n${"k".repeat(100_000)} = 1\n`,
      `[roles]\n"${"r".repeat(100_000)}" = {}\n`,
    ]) {
      writeFileSync(configPath, text);
      const status = cairn(scratch.dir, ["status"]);
      expect(status.code).toBe(2);
      expect(status.stderr).toContain("cairn.toml");
      expect(status.stderr.length).toBeLessThan(2_000);
    }
  });

  it("refuses a misspelt key in a policy table rather than dropping the rule it meant", () => {
    arrange(scratch.dir, ["init"]);
    const configPath = join(scratch.dir, ".cairn", "cairn.toml");
    const typos: [string, string][] = [
      // Each left the role, shortcut or definition of done wider than written: rw, any role, no gate.
      ['[roles.builder]\ngrants = "ro"\n', "roles.builder"],
      ['[shortcuts.deploy]\nargv = ["true"]\neffect = "destructive"\nrole = ["lead"]\n', "shortcuts.deploy"],
      ['[done]\nshortcut = ["test"]\n', "done"],
      ["[claims]\nlease_minute = 5\n", "claims"],
    ];
    for (const [text, where] of typos) {
      writeFileSync(configPath, text);
      const status = cairn(scratch.dir, ["status"]);
      expect(status.code, text).toBe(2);
      expect(status.stderr).toContain(`${where}: `);
      expect(status.stderr).toMatch(/grants|role|shortcut|lease_minute/);
    }
    // Sections this build does not know are still kept and ignored.
    writeFileSync(configPath, '[roles.builder]\ngrant = "ro"\n[future]\nanything = 1\n');
    expect(cairn(scratch.dir, ["status"]).code).toBe(0);
  });

  it("refuses a lease too long for a date, naming the key, rather than failing every status and sweep", () => {
    arrange(scratch.dir, ["init"]);
    arrange(scratch.dir, ["task", "add", "held"]);
    writeFileSync(join(scratch.dir, ".cairn", "cairn.toml"), "[claims]\nlease_minutes = 1e300\n");
    for (const args of [["status"], ["sweep"]]) {
      const run = cairn(scratch.dir, args);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain("claims.lease_minutes");
      expect(run.stderr).not.toContain("Invalid time value");
    }
    writeFileSync(join(scratch.dir, ".cairn", "cairn.toml"), "[claims]\nlease_minutes = 525600\n");
    expect(cairn(scratch.dir, ["status"]).code).toBe(0);
    expect(cairn(scratch.dir, ["sweep"]).code).toBe(0);
  });
});

describe("roles", () => {
  it("role add appends the role to cairn.toml, keeping the file; only the owner declares one", () => {
    expect(arrange(scratch.dir, ["init"]).code).toBe(0);
    const configPath = join(scratch.dir, ".cairn", "cairn.toml");
    const template = readFileSync(configPath, "utf8");
    const added = cairn(scratch.dir, [
      "role",
      "add",
      "builder",
      "--summary",
      "Implements tasks",
      "--scope",
      "src/**",
      "--scope",
      "test/**",
      "--wip-cap",
      "2",
      "--profile",
      "worker",
      "--instructions",
      'Run the tests.\nSay "done" only then.',
      "--json",
    ]);
    expect(added.code).toBe(0);
    expect(added.json).toMatchObject({
      name: "builder",
      scope: ["src/**", "test/**"],
      wip_cap: 2,
      grant: "rw",
    });
    const written = readFileSync(configPath, "utf8");
    expect(written.startsWith(template)).toBe(true);
    expect(cairn(scratch.dir, ["role", "list", "--json"]).json).toMatchObject({
      roles: [{ name: "builder", profile: "worker", summary: "Implements tasks" }],
    });
    const builder = addAgent(scratch.dir, "b1", "builder");
    const whoami = cairn(scratch.dir, ["whoami", "--json"], { env: { CAIRN_AGENT: builder.token } });
    expect(whoami.json).toMatchObject({
      role: "builder",
      profile: "worker",
      role_summary: "Implements tasks",
    });

    // Refused, in conflict or unusable: the file is left exactly as it was.
    const byAgent = cairn(scratch.dir, ["role", "add", "wider", "--grant", "rw"], {
      env: { CAIRN_AGENT: builder.token },
    });
    expect(byAgent.code).toBe(3);
    expect(cairn(scratch.dir, ["role", "add", "builder"]).code).toBe(5);
    expect(cairn(scratch.dir, ["role", "add", "two words"]).code).toBe(2);
    expect(readFileSync(configPath, "utf8")).toBe(written);
    // A file the new table cannot extend (roles given inline) fails to parse: nothing is written.
    writeFileSync(
      configPath,
      `roles = { tester = {} }\n${written.replace(/^\[roles\.builder\][\s\S]*$/m, "")}`,
    );
    const inline = readFileSync(configPath, "utf8");
    const clash = cairn(scratch.dir, ["role", "add", "reviewer", "--grant", "ro"]);
    expect(clash.code).toBe(2);
    expect(readFileSync(configPath, "utf8")).toBe(inline);
  });
});

describe("export and import", () => {
  it("round-trips a workspace losslessly into a fresh directory", () => {
    const source = initWorkspace();
    try {
      const parent = addAgent(source.dir, "lead", "planner");
      addAgent(source.dir, "worker-1", "planner", ["--parent", parent.id, "--grant", "ro"]);
      arrange(source.dir, ["agent", "retire", "worker-1"]);
      // A task moved under one made after it: its line names a parent whose line comes later.
      arrange(source.dir, ["task", "add", "Older"]);
      arrange(source.dir, ["task", "add", "Newer"]);
      expect(arrange(source.dir, ["task", "move", "T-1", "--parent", "T-2"]).code).toBe(0);
      // A risk closed, with when, by whom and why.
      const rated = ["--impact", "low", "--likelihood", "low", "--indicators", "i", "--action", "a"];
      arrange(source.dir, ["risk", "add", "a risk since mitigated", ...rated]);
      expect(arrange(source.dir, ["risk", "close", "RK-1", "--because", "mitigated"]).code).toBe(0);
      const exported = cairn(source.dir, ["export", "--out", join(scratch.dir, "backup.jsonl")]);
      expect(exported.code).toBe(0);
      const target = join(scratch.dir, uniqueName("restored"));
      mkdirSync(target);
      const imported = cairn(target, ["import", join(scratch.dir, "backup.jsonl"), "--json"]);
      expect(imported.code, imported.stderr).toBe(0);
      // On PostgreSQL the restored board has a schema of its own, the one thing its cairn.toml
      // says differently; everything else must be the same, byte for byte.
      const unschemed = (line: string) => line.replace(/schema = \\"[^"\\]*\\"/, 'schema = \\"…\\"');
      const original = readFileSync(join(scratch.dir, "backup.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map(unschemed);
      const again = cairn(target, ["export"]).stdout.trim().split("\n").map(unschemed);
      // Identical, plus the journal's record of the import itself (which the header counts too).
      const [header, ...rows] = original;
      const counted = JSON.parse(header as string) as { rows: number };
      expect(counted.rows).toBe(rows.length);
      expect(JSON.parse(again[0] as string)).toEqual({ ...counted, rows: counted.rows + 1 });
      const isImport = (line: string) =>
        (JSON.parse(line) as { row: { action?: string } }).row.action === "workspace.import";
      expect(again.slice(1).filter(isImport)).toHaveLength(1);
      expect(again.slice(1).filter((line) => !isImport(line))).toEqual(rows);
      // Restored tokens still work: identity survives a backup.
      const agents = cairn(target, ["agent", "list", "--all", "--json"]).json as {
        agents: { name: string; retired_at: string | null }[];
      };
      expect(agents.agents.map((a) => [a.name, a.retired_at !== null])).toEqual([
        ["lead", false],
        ["worker-1", true],
      ]);
    } finally {
      source.cleanup();
    }
  });

  it("an import never hands out again an id forgotten before the export, nor a dropped milestone's; an export without counters, or from before an index, still imports", () => {
    const source = initWorkspace();
    // A goal's plan needs a git checkout to measure against.
    const gitCheckout = (dir: string) => {
      runSync("git", ["init", "-q"], dir);
      runSync(
        "git",
        ["-c", "user.name=t", "-c", "user.email=t@t.invalid", "commit", "-q", "--allow-empty", "-m", "base"],
        dir,
      );
    };
    const plan = (...keys: string[]) => [
      "goal",
      "plan",
      "G-1",
      ...keys.flatMap((key) => ["--milestones", JSON.stringify({ key, title: key })]),
    ];
    try {
      gitCheckout(source.dir);
      for (const args of [
        ["remember", "one fact"],
        ["remember", "two fact"],
        ["remember", "three fact"],
        ["forget", "F-3", "--confirm"],
        ["remember", "four fact"],
        ["forget", "F-4", "--confirm"],
        ["goal", "create", "ship the importer"],
        plan("a", "b", "c"),
        // M-3 leaves the plan: the next milestone planned is M-4, here and wherever it is imported.
        plan("a", "b"),
      ]) {
        // A plan looks at the checkout through git, a process of its own: it runs as cairn.
        const result =
          args[0] === "goal" && args[1] === "plan" ? cairn(source.dir, args) : arrange(source.dir, args);
        expect(result.code, result.stderr).toBe(0);
      }
      const [header, ...rows] = cairn(source.dir, ["export"]).stdout.trimEnd().split("\n");
      const parsed = JSON.parse(header as string) as Record<string, unknown>;
      expect(parsed.counters).toEqual({ facts: 4, goal_milestones: 3 });
      const importInto = (name: string, headerLine: string) => {
        const file = join(scratch.dir, `${name}.jsonl`);
        writeFileSync(file, `${[headerLine, ...rows].join("\n")}\n`);
        const target = join(scratch.dir, uniqueName(name));
        mkdirSync(target);
        return { target, imported: cairn(target, ["import", file, "--json"]) };
      };
      const { target, imported } = importInto("restored", header as string);
      expect(imported.code, imported.stderr).toBe(0);
      const next = cairn(target, ["remember", "after the import", "--json"]);
      expect((next.json as { id: string }).id).toBe("F-5");
      gitCheckout(target);
      const replanned = cairn(target, [...plan("a", "b", "d"), "--json"]);
      expect(replanned.code, replanned.stderr).toBe(0);
      const planned = replanned.json as { milestones: { id: string; key: string }[] };
      expect(planned.milestones.map((m) => `${m.key}=${m.id}`)).toEqual(["a=M-1", "b=M-2", "d=M-4"]);
      // An export written before the header carried counters imports as it always did.
      const { counters: _counters, ...older } = parsed;
      const old = importInto("older", JSON.stringify(older));
      expect(old.imported.code, old.imported.stderr).toBe(0);
      // A counter for a table the store does not have refuses the import, writing nothing.
      const bad = importInto(
        "bad-counter",
        JSON.stringify({ ...parsed, counters: { schema_migrations: 9 } }),
      );
      expect(bad.imported.code).toBe(2);
      expect(bad.imported.stderr).toContain("schema_migrations");
      // Written before the last two migrations, each of which added columns (0024 to notes, 0023
      // to risks): restored at its own schema and migrated forward. A newer export is refused.
      const schema = parsed.schema as number;
      const beforeColumn = importInto("before-column", JSON.stringify({ ...parsed, schema: schema - 1 }));
      expect(beforeColumn.imported.code, beforeColumn.imported.stderr).toBe(0);
      const beforeBoth = importInto("before-both", JSON.stringify({ ...parsed, schema: schema - 2 }));
      expect(beforeBoth.imported.code, beforeBoth.imported.stderr).toBe(0);
      const newer = importInto("newer", JSON.stringify({ ...parsed, schema: schema + 1 }));
      expect(newer.imported.code).toBe(2);
      expect(newer.imported.stderr).toContain(
        `the export has schema ${schema + 1}, this workspace has ${schema}`,
      );
      expect(newer.imported.stderr).toContain("upgrade cairn");
    } finally {
      source.cleanup();
    }
  });

  it("restores an export an earlier cairn wrote (schema 18), migrated forward as the workspace would have been", () => {
    // Written by the build before migration 0020 (a finding's verdict-setter column), its paths
    // made generic: the tree has a task moved under a later one, a dependency, a verify command,
    // a confirmed finding, a fact, a risk, a term and an agent.
    const file = join(REPO_ROOT, "test", "fixtures", "exports", "schema-18.jsonl");
    const target = join(scratch.dir, uniqueName("from-18"));
    mkdirSync(target);
    const imported = cairn(target, ["import", file, "--json"]);
    expect(imported.code, imported.stderr).toBe(0);
    const tree = cairn(target, ["task", "list", "--json"]).json as { tasks: { id: string }[] };
    expect(tree.tasks.map((task) => task.id)).toEqual(["T-2", "T-1", "T-3", "T-4"]);
    const ready = cairn(target, ["task", "ready", "--json"]).json as { tasks: { id: string }[] };
    expect(ready.tasks.map((task) => task.id)).not.toContain("T-4");
    expect(cairn(target, ["note", "show", "N-2"]).stdout).toContain("[major, confirmed]");
    expect(cairn(target, ["recall", "backups", "--json"]).stdout).toContain("Backups are taken nightly");
    const again = JSON.parse(cairn(target, ["export"]).stdout.split("\n")[0] as string) as { schema: number };
    expect(again.schema).toBeGreaterThan(18);
    // New work goes on from there, numbered after what was restored.
    const added = cairn(target, ["task", "add", "after", "--json"]).json as { task: { id: string } };
    expect(added.task.id).toBe("T-5");
  });

  it("export --out replaces the file named, never writing into what it is hard-linked to", () => {
    const ws = initWorkspace();
    try {
      arrange(ws.dir, ["task", "add", "kept"]);
      // Laid in advance by anyone with a shell there: a routine backup then wrote over the database
      // (on PostgreSQL, over the cairn.toml that says where the board is).
      const backup = join(ws.dir, "backup.jsonl");
      linkSync(join(ws.dir, ".cairn", STORE_UNDER_TEST === "sqlite" ? "cairn.db" : "cairn.toml"), backup);
      const exported = cairn(ws.dir, ["export", "--out", backup]);
      expect(exported.code, exported.stderr).toBe(0);
      expect(readFileSync(backup, "utf8").split("\n")[0]).toContain('"cairn-export"');
      const shown = cairn(ws.dir, ["task", "show", "T-1", "--json"]);
      expect(shown.code, shown.stderr).toBe(0);
      expect(shown.json).toMatchObject({ task: { title: "kept" } });
      // Through a symlink, the file it points to is replaced and the link kept.
      const real = join(scratch.dir, "real.jsonl");
      // What an export killed part way left beside its target goes with the next export there.
      const dead = spawnSync(process.execPath, ["-e", ""]).pid as number;
      writeFileSync(join(scratch.dir, `.real.jsonl.${dead}.tmp`), "cut short");
      writeFileSync(real, "old");
      const link = join(ws.dir, "via-link.jsonl");
      symlinkSync(real, link);
      expect(cairn(ws.dir, ["export", "--out", link]).code).toBe(0);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(readFileSync(real, "utf8")).toContain('"cairn-export"');
      expect(readdirSync(ws.dir).filter((name) => name.includes(".tmp"))).toEqual([]);
      expect(readdirSync(scratch.dir).filter((name) => name.includes(".tmp"))).toEqual([]);
    } finally {
      ws.cleanup();
    }
  });

  // Bytes that are not UTF-8 can sit in a SQLite text column only; PostgreSQL refuses them on write.
  it.runIf(STORE_UNDER_TEST === "sqlite")(
    "store copy refused part way leaves no target file behind, so the fixed copy can run",
    () => {
      const ws = initWorkspace();
      try {
        arrange(ws.dir, ["task", "add", "kept"]);
        const file = join(ws.dir, ".cairn", "cairn.db");
        const raw = new Database(file);
        raw.prepare("UPDATE tasks SET title = CAST(X'FF41' AS TEXT) WHERE id = 'T-1'").run();
        raw.close();
        const out = join(scratch.dir, "copy.db");
        const refused = cairn(ws.dir, ["store", "copy", "--to", out]);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toContain("not UTF-8");
        expect(existsSync(out)).toBe(false);
        expect(readdirSync(scratch.dir).filter((name) => name.startsWith("copy.db"))).toEqual([]);
        const fix = new Database(file);
        fix.prepare("UPDATE tasks SET title = 'kept' WHERE id = 'T-1'").run();
        fix.close();
        const copied = cairn(ws.dir, ["store", "copy", "--to", out]);
        expect(copied.code, copied.stderr).toBe(0);
        expect(cairn(ws.dir, ["task", "show", "T-1", "--json"], { env: { CAIRN_DIR: undefined } }).code).toBe(
          0,
        );
        expect(readdirSync(scratch.dir).filter((name) => name.startsWith("copy.db"))).toEqual(["copy.db"]);
      } finally {
        ws.cleanup();
      }
    },
  );

  it("names the agents it restored unretired: whoever held their tokens where the export was made acts here", () => {
    const source = initWorkspace();
    let file: string;
    let bob: { id: string; token: string };
    try {
      bob = addAgent(source.dir, "bob", "builder");
      addAgent(source.dir, "gone", "builder");
      arrange(source.dir, ["agent", "retire", "gone"]);
      file = join(scratch.dir, "with-agents.jsonl");
      writeFileSync(file, arrange(source.dir, ["export"]).stdout);
    } finally {
      source.cleanup();
    }
    const target = join(scratch.dir, uniqueName("restored"));
    mkdirSync(target);
    const imported = cairn(target, ["import", file, "--json"]);
    expect(imported.code, imported.stderr).toBe(0);
    expect((imported.json as { agents: unknown[] }).agents).toEqual([
      { id: bob.id, name: "bob", grant: "rw" },
    ]);
    // The token minted on the other workspace works on this one: that is what the person is told.
    expect(cairn(target, ["whoami", "--json"], { env: { CAIRN_AGENT: bob.token } }).code).toBe(0);
    const again = join(scratch.dir, uniqueName("restored"));
    mkdirSync(again);
    const told = cairn(again, ["import", file]);
    expect(told.code, told.stderr).toBe(0);
    expect(told.stdout).toContain(
      `1 agent can act here with the token held where the export was made: ${bob.id} bob (rw)`,
    );
    expect(told.stdout).toContain("cairn agent retire AGENT");
  });

  it("refuses to import over an existing workspace and leaves it intact", () => {
    const ws = initWorkspace();
    try {
      addAgent(ws.dir, "keep", "builder");
      const backup = join(scratch.dir, "b.jsonl");
      arrange(ws.dir, ["export", "--out", backup]);
      const again = cairn(ws.dir, ["import", backup]);
      expect(again.code).toBe(5);
      expect(cairn(ws.dir, ["agent", "list", "--json"]).json).toMatchObject({ agents: [{ name: "keep" }] });
    } finally {
      ws.cleanup();
    }
  });

  it("rejects a file that is not an export, leaving no half-made workspace", () => {
    const source = initWorkspace();
    const header = arrange(source.dir, ["export"]).stdout.split("\n")[0];
    source.cleanup();
    const bad = join(scratch.dir, "bad.jsonl");
    writeFileSync(bad, `${header}\n{"table":"agents","row":{"nope":1}}\n`);
    const target = join(scratch.dir, uniqueName("t"));
    mkdirSync(target);
    const imported = cairn(target, ["import", bad]);
    expect(imported.code).toBe(2);
    expect(imported.stderr).toContain("no column");
    expect(cairn(target, ["status"]).code).toBe(4);
    const retry = cairn(target, ["import", join(scratch.dir, "missing.jsonl")]);
    expect(retry.code).not.toBe(0);
  });

  it("quotes a hostile table or column name truncated, never whole", () => {
    const source = initWorkspace();
    const header = arrange(source.dir, ["export"]).stdout.split("\n")[0];
    source.cleanup();
    const huge = "z".repeat(5 * 1024 * 1024);
    for (const record of [
      { table: huge, row: { id: 1 } },
      { table: "tasks", row: { [huge]: 1 } },
    ]) {
      const file = join(mkdtempSync(join(scratch.dir, "hostile-")), "hostile.jsonl");
      writeFileSync(file, `${header}\n${JSON.stringify(record)}\n`);
      const target = join(scratch.dir, uniqueName("t"));
      mkdirSync(target);
      const imported = cairn(target, ["import", file]);
      expect(imported.code).toBe(2);
      expect(imported.stderr).toMatch(/unknown table|has no column/);
      expect(imported.stderr.length).toBeLessThan(2_000);
    }
  });

  /** An export of a small board (two tasks, a fact, a note), as lines to edit before importing. */
  function exportedBoard(): string[] {
    const source = initWorkspace();
    try {
      arrange(source.dir, ["task", "add", "small", "--labels", "ok"]);
      arrange(source.dir, ["task", "add", "to be edited", "--traces", "src/a.ts"]);
      arrange(source.dir, ["remember", "The build takes two minutes"]);
      arrange(source.dir, ["note", "add", "finding", "--text", "a finding", "--severity", "minor"]);
      arrange(source.dir, [
        "shortcut",
        "add",
        "lint",
        "--argv",
        "npx",
        "--argv",
        "biome",
        "--effect",
        "read",
      ]);
      return arrange(source.dir, ["export"]).stdout.trimEnd().split("\n");
    } finally {
      source.cleanup();
    }
  }

  /** Import `lines` with one row changed by `edit`; the line number the edited row sits on. */
  function importEdited(
    lines: string[],
    table: string,
    id: string,
    edit: (row: Record<string, unknown>) => void,
  ) {
    const index = lines.findIndex((line) => {
      const record = JSON.parse(line) as {
        table?: string;
        row?: { id?: string; key?: string; name?: string };
      };
      return record.table === table && (record.row?.id ?? record.row?.key ?? record.row?.name) === id;
    });
    expect(index).toBeGreaterThan(0);
    const record = JSON.parse(lines[index] as string) as { row: Record<string, unknown> };
    edit(record.row);
    const edited = [...lines];
    edited[index] = JSON.stringify(record);
    const attempt = mkdtempSync(join(scratch.dir, "edited-"));
    const file = join(attempt, "edited.jsonl");
    writeFileSync(file, `${edited.join("\n")}\n`);
    const target = join(attempt, uniqueName("target"));
    mkdirSync(target);
    return { line: index + 1, target, imported: cairn(target, ["import", file, "--json"]) };
  }

  it("refuses a record past the limits the commands keep, naming line, record and field, and writes nothing", () => {
    const lines = exportedBoard();
    const huge = importEdited(lines, "tasks", "T-2", (row) => {
      row.title = "x".repeat(5 * 1024 * 1024);
    });
    expect(huge.imported.code).toBe(2);
    expect(huge.imported.stderr).toContain(`line ${huge.line}`);
    expect(huge.imported.stderr).toContain('tasks "T-2"');
    expect(huge.imported.stderr).toMatch(/title holds at most 500 characters \(this one has 5242880\)/);
    // The value itself is never echoed back.
    expect(huge.imported.stderr.length).toBeLessThan(2_000);
    // All or nothing: no workspace was left behind.
    expect(existsSync(join(huge.target, ".cairn"))).toBe(false);
    expect(cairn(huge.target, ["status"]).code).toBe(4);

    // A list column is checked item by item, as `task add --traces` checks it.
    const trace = importEdited(lines, "tasks", "T-2", (row) => {
      row.traces = JSON.stringify(["src/a.ts", "p".repeat(5_000)]);
    });
    expect(trace.imported.code).toBe(2);
    expect(trace.imported.stderr).toContain(`line ${trace.line}`);
    expect(trace.imported.stderr).toContain("traces[1] holds at most 4096 characters");

    // A domain's stricter limit holds too: a fact is at most 4 000 characters.
    const fact = importEdited(lines, "facts", "F-1", (row) => {
      row.text = "word ".repeat(1_000);
    });
    expect(fact.imported.code).toBe(2);
    expect(fact.imported.stderr).toMatch(/facts "F-1".*text holds at most 4000 characters/);

    // JSON a row holds is checked by the fields inside it: a note's body text.
    const note = importEdited(lines, "notes", "N-1", (row) => {
      row.body = JSON.stringify({ kind: "finding", text: "y".repeat(300 * 1024), severity: "minor" });
    });
    expect(note.imported.code).toBe(2);
    expect(note.imported.stderr).toContain("body.text holds at most 262144 characters");

    // A list is held to the total its command holds it to, each item within its own limit: a
    // shortcut's command of five words of 4,000 characters, which `shortcut add` refuses.
    const shortcut = importEdited(lines, "shortcuts", "lint", (row) => {
      row.argv = JSON.stringify(Array.from({ length: 5 }, (_, i) => `${i}`.padEnd(4_000, "w")));
    });
    expect(shortcut.imported.code).toBe(2);
    expect(shortcut.imported.stderr).toContain(
      `line ${shortcut.line} (shortcuts "lint"): argv: a shortcut's command holds at most 16384 characters in all (this one has 20000)`,
    );
    expect(existsSync(join(shortcut.target, ".cairn"))).toBe(false);
  });

  it("refuses text or a fraction where a column holds numbers, on SQLite as PostgreSQL does, writing nothing", () => {
    const lines = exportedBoard();
    const edits: [(row: Record<string, unknown>) => void, string][] = [
      [(row) => (row.priority_rank = "high"), '(tasks.priority_rank) holds integers; it gives "high"'],
      [(row) => (row.unverified = 0.5), '(tasks.unverified) holds integers; it gives "0.5"'],
    ];
    for (const [edit, message] of edits) {
      const edited = importEdited(lines, "tasks", "T-2", edit);
      expect(edited.imported.code).not.toBe(0);
      expect(existsSync(join(edited.target, ".cairn"))).toBe(false);
      if (STORE_UNDER_TEST === "sqlite") {
        expect(edited.imported.code).toBe(2);
        expect(edited.imported.stderr).toContain(`line ${edited.line} ${message}`);
      }
    }
  });

  it("refuses a key or counter near 2^53, where ids stop being unique, writing nothing", () => {
    const lines = exportedBoard();
    const edited = importEdited(lines, "tasks", "T-2", (row) => (row.seq = Number.MAX_SAFE_INTEGER));
    expect(edited.imported.code, edited.imported.stderr).toBe(2);
    expect(edited.imported.stderr).toContain(`line ${edited.line} (tasks "T-2"): seq is past ${2 ** 48}`);
    expect(existsSync(join(edited.target, ".cairn"))).toBe(false);
    // The header's counters too: one at 2^53 - 1 handed out one task id, then that id again.
    const header = JSON.parse(lines[0] as string) as { counters?: Record<string, number> };
    header.counters = { ...header.counters, tasks: Number.MAX_SAFE_INTEGER };
    const attempt = mkdtempSync(join(scratch.dir, "counter-"));
    const file = join(attempt, "edited.jsonl");
    writeFileSync(file, `${[JSON.stringify(header), ...lines.slice(1)].join("\n")}\n`);
    const target = join(attempt, "target");
    mkdirSync(target);
    const imported = cairn(target, ["import", file]);
    expect(imported.code, imported.stderr).toBe(2);
    expect(imported.stderr).toMatch(/not a cairn export header \("counters\.tasks": .*281474976710656/);
    expect(existsSync(join(target, ".cairn"))).toBe(false);
  });

  it("refuses a task filed under itself, which no move makes, writing nothing", () => {
    // The board reads a tree: a task among its own ancestors has no root, and its subtree no end.
    const edited = importEdited(exportedBoard(), "tasks", "T-1", (row) => {
      row.parent_id = "T-1";
      row.sort_path = "000000001/000000001";
    });
    expect(edited.imported.code, edited.imported.stderr).toBe(2);
    expect(edited.imported.stderr).toContain(
      `line ${edited.line} (tasks "T-1"): its parents form a cycle ("T-1" → "T-1")`,
    );
    expect(existsSync(join(edited.target, ".cairn"))).toBe(false);
  });

  it("refuses a note or a fact no command could have written (a decision with nothing rejected, a fact seen 0 times), writing nothing", () => {
    const lines = exportedBoard();
    const edits: [(row: Record<string, unknown>) => void, RegExp][] = [
      [
        (row) => {
          row.kind = "decision";
          row.severity = null;
          row.trust = null;
          row.body = JSON.stringify({ kind: "decision", chose: "skip the tests", because: "faster" });
        },
        /body is not a note's \(rejected: /,
      ],
      [(row) => (row.body = "not json"), /body is not a note's/],
      [(row) => (row.kind = "ref"), /its kind is ref, its body a finding's/],
      [(row) => (row.severity = "major"), /severity column differs/],
    ];
    for (const [edit, reason] of edits) {
      const edited = importEdited(lines, "notes", "N-1", edit);
      expect(edited.imported.code, edited.imported.stderr).toBe(2);
      expect(edited.imported.stderr).toContain(`line ${edited.line} (notes "N-1")`);
      expect(edited.imported.stderr).toMatch(reason);
      expect(existsSync(join(edited.target, ".cairn"))).toBe(false);
    }
    // A fact's count and times are what recall ranks by: a count of 0 or a time that is no date
    // made every recall matching the fact fail.
    const factEdits: [(row: Record<string, unknown>) => void, RegExp][] = [
      [(row) => (row.seen_count = 0), /seen_count is not a count of at least 1/],
      [(row) => (row.last_seen_at = "yesterday"), /last_seen_at is not a time as cairn writes one/],
    ];
    for (const [edit, reason] of factEdits) {
      const edited = importEdited(lines, "facts", "F-1", edit);
      expect(edited.imported.code, edited.imported.stderr).toBe(2);
      expect(edited.imported.stderr).toContain(`line ${edited.line} (facts "F-1")`);
      expect(edited.imported.stderr).toMatch(reason);
      expect(existsSync(join(edited.target, ".cairn"))).toBe(false);
    }
    // The owner's setting the definition of done runs with: one that is not JSON failed every finish.
    const setting = importEdited(lines, "meta", "owner_setting", (row) => (row.value = "not json"));
    expect(setting.imported.code, setting.imported.stderr).toBe(2);
    expect(setting.imported.stderr).toContain("the owner's setting is not");
    // The file as exported still imports.
    const untouched = importEdited(lines, "notes", "N-1", () => {});
    expect(untouched.imported.code, untouched.imported.stderr).toBe(0);
  });

  it("refuses a JSON column holding what cairn never stores there (traces as one text, labels as an object, a shortcut's command as a string), writing nothing", () => {
    const lines = exportedBoard();
    // Restored, a task's traces that were not a list made `task ready`, `now` and the briefs of
    // the workspace fail for every agent; a shortcut's command as one string, `shortcut list`.
    const edits: [string, string, (row: Record<string, unknown>) => void, RegExp][] = [
      ["tasks", "T-2", (row) => (row.traces = "src/a.ts"), /its traces is not JSON/],
      ["tasks", "T-2", (row) => (row.traces = '"src/a.ts"'), /its traces is not what cairn stores there/],
      ["tasks", "T-1", (row) => (row.labels = '{"ok":1}'), /its labels is not what cairn stores there/],
      ["tasks", "T-1", (row) => (row.estimate = "[1,2,3]"), /its estimate is not what cairn stores there/],
      ["shortcuts", "lint", (row) => (row.argv = '"npx biome"'), /its argv is not what cairn stores there/],
      ["facts", "F-1", (row) => (row.topics = "{}"), /its topics is not what cairn stores there/],
    ];
    for (const [table, id, edit, reason] of edits) {
      const edited = importEdited(lines, table, id, edit);
      expect(edited.imported.code, `${table} ${id}: ${edited.imported.stderr}`).toBe(2);
      expect(edited.imported.stderr).toContain(`line ${edited.line} (${table} "${id}")`);
      expect(edited.imported.stderr).toMatch(reason);
      expect(existsSync(join(edited.target, ".cairn"))).toBe(false);
    }
    // The file as exported still imports, and its board reads.
    const untouched = importEdited(lines, "tasks", "T-2", () => {});
    expect(untouched.imported.code, untouched.imported.stderr).toBe(0);
    expect(cairn(untouched.target, ["task", "ready"]).code).toBe(0);
  });

  it("refuses an agent no command could have added (the id owner, role owner, a name read as the owner or an id), writing nothing", () => {
    const source = initWorkspace();
    let lines: string[];
    try {
      arrange(source.dir, ["task", "add", "the owner's own"]);
      arrange(source.dir, ["task", "claim", "T-1"]);
      addAgent(source.dir, "bob", "builder");
      lines = arrange(source.dir, ["export"]).stdout.trimEnd().split("\n");
    } finally {
      source.cleanup();
    }
    // Restored with the id owner and a token its editor knows, the agent held the owner's claim,
    // released it, and every event and note it wrote was recorded as the owner's.
    const known = "cairn_edited-export-token";
    const edits: [(row: Record<string, unknown>) => void, RegExp][] = [
      [
        (row) => {
          row.id = "owner";
          row.token_hash = createHash("sha256").update(known).digest("hex");
        },
        /its id is not an agent's/,
      ],
      [(row) => (row.role = "owner"), /its role is not one `agent add` takes/],
      [(row) => (row.role = "Human"), /its role is not one `agent add` takes/],
      [(row) => (row.name = "Owner"), /its name is not one `agent add` takes/],
      [(row) => (row.name = "HUMAN"), /its name is not one `agent add` takes/],
      [(row) => (row.name = "T-1"), /its name is not one `agent add` takes/],
      [(row) => (row.parent_id = "A-1"), /it is its own parent/],
    ];
    for (const [edit, reason] of edits) {
      const edited = importEdited(lines, "agents", "A-1", edit);
      expect(edited.imported.code, edited.imported.stderr).toBe(2);
      expect(edited.imported.stderr).toContain(`line ${edited.line} (agents "`);
      expect(edited.imported.stderr).toMatch(reason);
      expect(existsSync(join(edited.target, ".cairn"))).toBe(false);
    }
    const untouched = importEdited(lines, "agents", "A-1", () => {});
    expect(untouched.imported.code, untouched.imported.stderr).toBe(0);
  });

  /** A valid export holding `events` journal rows past a fresh workspace's own: slow to import. */
  function largeExport(events: number): string {
    const source = initWorkspace();
    try {
      const [header, ...rows] = arrange(source.dir, ["export"]).stdout.trimEnd().split("\n");
      const extra = Array.from({ length: events }, (_, i) =>
        JSON.stringify({
          table: "events",
          row: {
            id: i + 1_000,
            at: "2026-01-01T00:00:00.000Z",
            actor: "owner",
            action: "task.add",
            subject: `T-${i + 1}`,
            data: '{"title":"t"}',
          },
        }),
      );
      const file = join(mkdtempSync(join(scratch.dir, "large-")), "large.jsonl");
      const counted = { ...(JSON.parse(header as string) as object), rows: rows.length + events };
      writeFileSync(file, `${[JSON.stringify(counted), ...rows, ...extra].join("\n")}\n`);
      return file;
    } finally {
      source.cleanup();
    }
  }

  /**
   * Until `cairn import` into `target` has begun writing: its database file (SQLite), or the
   * `.cairn/` it makes before it opens the transaction that fills the schema (PostgreSQL).
   */
  async function untilWriting(target: string) {
    const state = join(target, ".cairn");
    const begun = () =>
      existsSync(state) &&
      (STORE_UNDER_TEST === "postgres" || readdirSync(state).some((name) => name.startsWith("cairn.db")));
    for (let waited = 0; waited < 20_000 && !begun(); waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return state;
  }

  /** `cairn import FILE` into a new folder, once it has begun writing its database. */
  async function importUnderWay(file: string) {
    const target = join(scratch.dir, uniqueName("target"));
    mkdirSync(target);
    const child = spawn(process.execPath, [CAIRN_BIN, "import", file], { cwd: target, env: cleanEnv() });
    const closed = new Promise((resolve) => child.on("close", resolve));
    const state = await untilWriting(target);
    return { target, child, closed, state };
  }

  it("leaves no workspace behind when the import is killed, so it can be run again", async () => {
    const file = largeExport(200_000);
    const { target, child, closed, state } = await importUnderWay(file);
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill("SIGKILL");
    await closed;
    // No half-made workspace: nothing serves commands here, and nothing refuses the retry.
    expect(cairn(target, ["status"]).code).toBe(4);
    const source = initWorkspace();
    try {
      arrange(source.dir, ["task", "add", "kept"]);
      const small = join(scratch.dir, "small.jsonl");
      arrange(source.dir, ["export", "--out", small]);
      const retry = cairn(target, ["import", small]);
      expect(retry.code, retry.stderr).toBe(0);
      expect(cairn(target, ["task", "show", "T-1", "--json"]).json).toMatchObject({
        task: { title: "kept" },
      });
      // The killed import's half-built copy does not stay beside the workspace for good.
      expect(readdirSync(state).filter((name) => name.includes("-import-"))).toEqual([]);
    } finally {
      source.cleanup();
    }
  }, 60_000);

  // A SQLite import builds its copy beside the workspace; a shared store's fills a schema.
  it.runIf(STORE_UNDER_TEST === "sqlite")(
    "an init where an import was killed removes the import's half-built copy",
    async () => {
      const file = largeExport(200_000);
      const { target, child, closed, state } = await importUnderWay(file);
      child.kill("SIGKILL");
      await closed;
      expect(readdirSync(state).filter((name) => name.includes("-import-")).length).toBeGreaterThan(0);
      const init = cairn(target, ["init"]);
      expect(init.code, init.stderr).toBe(0);
      expect(readdirSync(state).filter((name) => name.includes("-import-"))).toEqual([]);
    },
    60_000,
  );

  it("stops mid-import on SIGTERM, leaving no workspace and no half-built copy behind", async () => {
    const file = largeExport(200_000);
    const { child, closed, state } = await importUnderWay(file);
    child.kill("SIGTERM");
    expect(await closed).toBe(143);
    expect(existsSync(state)).toBe(false);
  }, 60_000);

  it("serves no command from a workspace still being imported, so nothing acknowledged is lost", async () => {
    // Long enough to be under way when the other command runs; PostgreSQL takes ten times as long a row.
    const file = largeExport(STORE_UNDER_TEST === "sqlite" ? 200_000 : 20_000);
    const target = join(scratch.dir, uniqueName("target"));
    mkdirSync(target);
    const importing = cairnAsync(target, ["import", file]);
    await untilWriting(target);
    const meanwhile = cairn(target, ["task", "add", "written during the import"]);
    const imported = await importing;
    if (meanwhile.code === 0) {
      // Acknowledged: it must still be there, whatever became of the import.
      expect(cairn(target, ["task", "list", "--text", "during the import"]).stdout).toContain(
        "written during",
      );
    } else {
      expect(meanwhile.code).toBe(4);
      expect(imported.code, imported.stderr).toBe(0);
    }
  }, 60_000);

  it("imports what the commands themselves accept, at their limits, control characters included", () => {
    const lines = exportedBoard();
    const atLimit = importEdited(lines, "tasks", "T-2", (row) => {
      row.title = `\x1b[31mred\x1b[0m ${"t".repeat(487)}`;
      row.context = "c".repeat(256 * 1024);
      row.traces = JSON.stringify(Array.from({ length: 1_000 }, (_, i) => `src/${i}.ts`));
    });
    expect(atLimit.imported.code, atLimit.imported.stderr).toBe(0);
    const shown = cairn(atLimit.target, ["task", "show", "T-2", "--json"]).json as {
      task: { title: string; context: string };
    };
    expect(shown.task.title.startsWith("\x1b[31mred")).toBe(true);
    expect(shown.task.context).toHaveLength(256 * 1024);
  });
});
