import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { gitWorkspace } from "../helpers/goals.js";
import { workspaceEachTest } from "../helpers/mcp.js";
import { cairn, machineHome, REPO_ROOT, scratchDir } from "../helpers/workspace.js";

// What a new user does on the word of the README, `cairn init`'s cairn.toml and the help texts:
// each example, taken as written, does what it says.

describe("`npm run bench -- SUITE`", () => {
  it("names the suites when one asked for does not exist, rather than running nothing and passing", () => {
    const bench = spawnSync(process.execPath, [join(REPO_ROOT, "dist", "bench.mjs"), "goal"], {
      encoding: "utf8",
    });
    expect(bench.status).toBe(2);
    expect(bench.stderr).toContain('bench: no suite "goal"; the suites are spine, goals,');
  });
});

describe("the cairn.toml `cairn init` writes", () => {
  const { ws } = workspaceEachTest();

  /** Every commented setting line (`# key = …`, `# [table]`) made live, as a user uncomments them. */
  function uncommentEverySetting(): void {
    const file = join(ws.dir, ".cairn", "cairn.toml");
    const lines = readFileSync(file, "utf8").split("\n");
    writeFileSync(file, lines.map((line) => line.replace(/^# (?=\[|[a-z_]+ += )/, "")).join("\n"));
  }

  it("with its examples uncommented, lets a task whose check passes and that carries a decision finish", () => {
    writeFileSync(
      join(ws.dir, "package.json"),
      `${JSON.stringify({ name: "x", scripts: { test: "true" } })}\n`,
    );
    uncommentEverySetting();
    expect(cairn(ws.dir, ["role", "list"]).code).toBe(0);
    const criterion = JSON.stringify({ text: "it runs", verify: ["true"] });
    expect(cairn(ws.dir, ["task", "add", "Parse the config", "--criteria", criterion]).code).toBe(0);
    expect(cairn(ws.dir, ["task", "claim", "T-1"]).code).toBe(0);
    expect(cairn(ws.dir, ["task", "check", "T-1", "--all"]).code).toBe(0);
    const note = [
      "note",
      "add",
      "decision",
      "--chose",
      "toml",
      "--rejected",
      "yaml",
      "--because",
      "comments",
    ];
    expect(cairn(ws.dir, [...note, "--scope", "T-1"]).code).toBe(0);
    const finished = cairn(ws.dir, ["task", "finish", "T-1"]);
    expect(finished.stderr).toBe("");
    expect(finished.code).toBe(0);
  });
});

describe("a refusal's next step, on the terminal", () => {
  let repo: { dir: string; cleanup: () => void };
  beforeEach(() => {
    repo = gitWorkspace({ "check.js": "process.exit(0)\n" });
  });
  afterEach(() => repo.cleanup());

  it("names the CLI's --all, not the tool's argument, for a tick earned on another tree", () => {
    const criterion = JSON.stringify({ text: "the check passes", verify: ["node", "check.js"] });
    expect(cairn(repo.dir, ["task", "add", "t", "--criteria", criterion]).code).toBe(0);
    expect(cairn(repo.dir, ["task", "claim", "T-1"]).code).toBe(0);
    expect(cairn(repo.dir, ["task", "check", "T-1", "--all"]).code).toBe(0);
    writeFileSync(join(repo.dir, "check.js"), "process.exit(0) // edited\n");
    const finished = cairn(repo.dir, ["task", "finish", "T-1", "--json"]);
    expect(finished.code).toBe(3);
    const next = (finished.json as { refused: { next: string } }).refused.next;
    expect(next).toContain("`cairn task check T-1`");
    expect(next).toContain("--all");
    expect(next).not.toContain("all: true");
  });
});

describe("the help of the commands the root help lists below the others", () => {
  const { ws } = workspaceEachTest();

  it.each([
    ["mcp", "--profile"],
    ["daemon", "--dry-run"],
    ["ui", "--port"],
  ])(
    "cairn %s --help says what it does and its flags (%s) on stdout, and `cairn help` of it does too",
    (name, flag) => {
      for (const argv of [
        [name, "--help"],
        ["help", name],
      ]) {
        const help = cairn(ws.dir, argv);
        expect(help.code).toBe(0);
        expect(help.stdout).toContain(`usage: cairn ${name}`);
        expect(help.stdout).toContain(`  ${flag}`);
      }
      const wrong = cairn(ws.dir, [name, "--bogus"]);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toContain(`usage: cairn ${name}`);
      // The usage says which word it could not take, as the other commands' parser does.
      expect(wrong.stderr).toContain(`cairn ${name}: unknown option "--bogus"`);
    },
  );
});

describe("a flag of mcp or ui given a wrong value", () => {
  const { ws } = workspaceEachTest();

  it("is named, with what it takes", () => {
    const port = cairn(ws.dir, ["ui", "--port", "abc"]);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('cairn ui: --port takes a port number, 0 to 65535, not "abc"');
    const missing = cairn(ws.dir, ["mcp", "--profile"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cairn mcp: --profile needs a value: worker, planner, operator or all");
  });
});

describe("CAIRN_DIR", () => {
  const { ws } = workspaceEachTest();

  it("set to the .cairn folder itself is told to name the project, not to init a second workspace inside", () => {
    const status = cairn(tmpdir(), ["status", "--json"], { env: { CAIRN_DIR: join(ws.dir, ".cairn") } });
    expect(status.code).toBe(4);
    const next = (status.json as { error: { next: string } }).error.next;
    expect(next).toContain(`set CAIRN_DIR to "${ws.dir}"`);
    expect(next).not.toContain("cairn init");
    expect(cairn(tmpdir(), ["status"], { env: { CAIRN_DIR: ws.dir } }).code).toBe(0);
  });
});

describe("an evaluator proposal's dry run", () => {
  let repo: { dir: string; cleanup: () => void };
  beforeEach(() => {
    repo = gitWorkspace();
  });
  afterEach(() => repo.cleanup());

  it("names the CLI flag that tries its rule, not only the tool's argument; a freeze it does not unblock, how to mark a proof manual", () => {
    expect(cairn(repo.dir, ["goal", "create", "make it fast"]).code).toBe(0);
    const proposed = cairn(repo.dir, ["eval", "propose", "G-1", "--proof", "latency", "--argv", "true"]);
    expect(proposed.code).toBe(0);
    expect(proposed.stdout).toContain("--sample-output");
    // A freeze refused for a proof no approved evaluator measures says how to mark it manual.
    const update = [
      "goal",
      "update",
      "G-1",
      "--outcome",
      "fast",
      "--proofs",
      '{"name":"latency","threshold":100}',
    ];
    expect(cairn(repo.dir, update).code).toBe(0);
    const frozen = cairn(repo.dir, ["run", "freeze", "G-1"]);
    expect(frozen.code).toBe(3);
    expect(frozen.stderr).toContain("no approved evaluator measures: tests, latency");
    expect(frozen.stderr).toContain(`\`cairn goal update G-1 --proofs '{"name":"tests","manual":true}'\``);
  });
});

describe("help texts agree with the README", () => {
  const { ws } = workspaceEachTest();

  it("name ~/.pgpass beside PGPASSWORD wherever a PostgreSQL URL is taken", () => {
    for (const argv of [["init"], ["import"], ["store", "copy"]]) {
      const help = cairn(ws.dir, [...argv, "--help"]).stdout.replace(/\s+/g, " ");
      expect(help).toContain("PGPASSWORD or ~/.pgpass");
    }
  });

  it("say what a flag takes where its name alone does not, though the tool's schema leaves it to the tool's text", () => {
    const flags: [string[], string][] = [
      [["task", "check"], "--n <n> the criterion's number, as `task show` lists them"],
      [["ask"], "--to <to> a role, or human (default: the role owning the task's paths)"],
      [["asks"], "--all answered questions too"],
      [["eval", "propose"], "--repeats <repeats> samples taken per evaluation (1 to 50)"],
    ];
    for (const [argv, line] of flags) {
      expect(cairn(ws.dir, [...argv, "--help"]).stdout.replace(/\s+/g, " "), argv.join(" ")).toContain(line);
    }
  });

  it("say audit verify holds the head witnessed at every write, not only at the last verify", () => {
    const help = cairn(ws.dir, ["audit", "verify", "--help"]).stdout.replace(/\s+/g, " ");
    expect(help).toContain("witnessed last (at a write or a verify)");
  });
});

describe("`cairn init --store` with a PostgreSQL URL no server answers", () => {
  it("points at the URL it was given, not only at a [store] url the workspace does not have yet", () => {
    const scratch = scratchDir();
    try {
      const url = "postgres://me@127.0.0.1:1/cairn?schema=webshop";
      const init = cairn(scratch.dir, ["init", "--store", url], { env: { CAIRN_STORE_URL: undefined } });
      expect(init.code).toBe(1);
      expect(init.stderr).toContain("cannot reach PostgreSQL at 127.0.0.1:1");
      expect(init.stderr).toContain("check the host and port in the URL (as given to --store or --to");
    } finally {
      scratch.cleanup();
    }
  });
});

describe("`cairn audit verify --anchor SEQ:HASH`, with the Head an earlier verify printed", () => {
  const { ws } = workspaceEachTest();

  it("says the log still holds the anchor given, not only the head this machine witnessed", () => {
    const head = (cairn(ws.dir, ["audit", "verify", "--json"]).json as { head: string }).head;
    const anchored = cairn(ws.dir, ["audit", "verify", "--anchor", head]);
    expect(anchored.code).toBe(0);
    expect(anchored.stdout).toContain(`Still holds entry ${head.split(":")[0]}, the --anchor given.`);
  });
});

describe("an OS tool refused on the terminal", () => {
  const { ws } = workspaceEachTest();

  it("points at the command that lists what runs, not only at the MCP tool", () => {
    const { env } = machineHome(ws.dir, '[os]\nenabled = true\nallow = ["ls"]\n');
    const refused = cairn(ws.dir, ["os", "run", "rm", "x"], { env });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain("`cairn os list`");
  });
});

describe("an agent added with a role cairn.toml does not declare", () => {
  const { ws } = workspaceEachTest();

  it("is added, with a note that nothing of a role binds it yet: a typo in --role is seen", () => {
    const typo = cairn(ws.dir, ["agent", "add", "bob", "--role", "buidler"]);
    expect(typo.code).toBe(0);
    expect(typo.stdout).toContain("note: cairn.toml declares no role buidler");
    expect(cairn(ws.dir, ["agent", "add", "ann", "--role", "buidler", "--json"]).json).toMatchObject({
      role_declared: false,
    });
    expect(cairn(ws.dir, ["role", "add", "builder", "--summary", "implements tasks"]).code).toBe(0);
    const declared = cairn(ws.dir, ["agent", "add", "cy", "--role", "builder"]);
    expect(declared.stdout).not.toContain("note:");
    expect(cairn(ws.dir, ["agent", "add", "di", "--role", "builder", "--json"]).json).toMatchObject({
      role_declared: true,
    });
  });
});

describe("a role whose scope names a folder", () => {
  const { ws } = workspaceEachTest();

  it("is declared with a note that the glob matches the folder alone, and src/** would cover its files", () => {
    mkdirSync(join(ws.dir, "src"));
    const folder = cairn(ws.dir, ["role", "add", "builder", "--scope", "src/", "--scope", "docs/*.md"]);
    expect(folder.code).toBe(0);
    expect(folder.stdout).toContain(
      'note: scope "src/" names the folder itself, not what is in it: `src/**` covers its files',
    );
    const globbed = cairn(ws.dir, ["role", "add", "lead", "--scope", "src/**", "--json"]);
    expect(globbed.json).toMatchObject({ name: "lead", notes: [] });
  });
});
