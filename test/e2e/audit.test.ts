import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../helpers/agents.js";
import { callTool, connectMcp } from "../helpers/mcp.js";
import {
  addAgent,
  CAIRN_BIN,
  cairn,
  cleanEnv,
  initWorkspace,
  STORE_UNDER_TEST,
  scratchDir,
} from "../helpers/workspace.js";

let ws: { dir: string; cleanup: () => void };
beforeAll(() => {
  ws = initWorkspace();
});
afterAll(() => ws.cleanup());

const auditPath = () => join(ws.dir, ".cairn", "audit.jsonl");
const lines = () => readFileSync(auditPath(), "utf8").trimEnd().split("\n");

/** `log` re-hashed from its genesis, as long as before, its last line now another command. */
function forgedLog(log: string): string {
  const entries = log
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  (entries.at(-1) as { data: { command: string } }).data.command = "task finish";
  let prev = "0".repeat(64);
  const forged = entries.map((entry, index) => {
    const body = JSON.stringify({
      seq: index + 1,
      ts: entry.ts,
      severity: entry.severity,
      event: entry.event,
      actor: entry.actor,
      data: entry.data,
      prev,
    });
    prev = createHash("sha256").update(body).digest("hex");
    return `${body.slice(0, -1)},"hash":"${prev}"}`;
  });
  return `${forged.join("\n")}\n`;
}

/**
 * A workspace of its own on a machine of its own (CAIRN_HOME): made, given `tasks` tasks, and
 * verified once, so its witness holds the last of them; then `check` runs, and both are removed.
 */
function onItsOwnMachine(
  tasks: number,
  check: (dir: string, machine: { env: Record<string, string> }) => void,
) {
  const home = scratchDir("cairn-witness-home-");
  const dir = scratchDir("cairn-witness-ws-");
  const machine = { env: { CAIRN_HOME: home.dir } };
  try {
    expect(cairn(dir.dir, ["init"], machine).code).toBe(0);
    for (let n = 1; n <= tasks; n++)
      expect(cairn(dir.dir, ["task", "add", `task ${n}`], machine).code).toBe(0);
    expect(cairn(dir.dir, ["audit", "verify"], machine).code).toBe(0);
    check(dir.dir, machine);
  } finally {
    dir.cleanup();
    home.cleanup();
  }
}

/** Append valid chained entries to the log in `stateDir` until it is exactly `bytes` long. */
function padLog(stateDir: string, bytes: number): void {
  const path = join(stateDir, "audit.jsonl");
  let text = readFileSync(path, "utf8");
  let { seq, hash: prev } = JSON.parse(text.trimEnd().split("\n").at(-1) as string) as {
    seq: number;
    hash: string;
  };
  const line = (pad: string) => {
    const body = JSON.stringify({
      seq: seq + 1,
      ts: new Date().toISOString(),
      severity: "info",
      event: "padding",
      actor: "owner",
      data: { pad },
      prev,
    });
    const hash = createHash("sha256").update(body).digest("hex");
    return { text: `${body.slice(0, -1)},"hash":"${hash}"}\n`, hash };
  };
  while (Buffer.byteLength(text) < bytes) {
    const room = bytes - Buffer.byteLength(text) - line("").text.length;
    const next = line("x".repeat(room <= 4_000 ? room : 2_000));
    text += next.text;
    seq++;
    prev = next.hash;
  }
  writeFileSync(path, text);
}

describe("audit log through the faces", () => {
  it("8 servers appending at once leave one valid chain with every line", async () => {
    const reader = addAgent(ws.dir, "reader", "reviewer", ["--grant", "ro"]);
    const writers = Array.from({ length: 4 }, (_, i) => addAgent(ws.dir, `writer${i}`, "builder"));
    const servers = await Promise.all([
      // Refused writes are audited without touching the store: pure contention on the log.
      ...Array.from({ length: 4 }, () => connectMcp(ws.dir, { env: { CAIRN_AGENT: reader.token } })),
      ...writers.map((w) => connectMcp(ws.dir, { env: { CAIRN_AGENT: w.token } })),
    ]);
    const PER_SERVER = 15;
    try {
      await Promise.all(
        servers.flatMap((server, s) =>
          Array.from({ length: PER_SERVER }, (_, i) =>
            callTool(server, "add_task", { title: `server ${s} task ${i}` }),
          ),
        ),
      );
    } finally {
      await Promise.all(servers.map((s) => s.close()));
    }
    const verify = cairn(ws.dir, ["audit", "verify", "--json"]);
    expect(verify.code, verify.stderr).toBe(0);
    const counted = (verify.json as { entries: number }).entries;
    // The workspace's init, five `agent add` calls and every tool call, none lost.
    expect(counted).toBe(1 + 5 + servers.length * PER_SERVER);
    const outcomes = lines()
      .map((line) => JSON.parse(line) as { event: string; data: { command?: string; outcome?: string } })
      .filter((e) => e.data.command === "task add");
    expect(outcomes.filter((e) => e.data.outcome === "refused")).toHaveLength(4 * PER_SERVER);
    expect(outcomes.filter((e) => e.data.outcome === "ok")).toHaveLength(4 * PER_SERVER);
  }, 60_000);

  it("a workspace's log starts with what made it: its init, or the import that restored it and its rows", () => {
    const first = (dir: string) =>
      JSON.parse(readFileSync(join(dir, ".cairn", "audit.jsonl"), "utf8").split("\n")[0] as string) as {
        seq: number;
        actor: string;
        data: Record<string, unknown>;
      };
    expect(first(ws.dir)).toMatchObject({ seq: 1, actor: "owner", data: { command: "init", outcome: "ok" } });
    const scratch = scratchDir();
    try {
      const file = join(scratch.dir, "backup.jsonl");
      expect(cairn(ws.dir, ["export", "--out", file]).code).toBe(0);
      const target = join(scratch.dir, "restored");
      mkdirSync(target);
      const imported = cairn(target, ["import", file, "--json"]);
      expect(imported.code, imported.stderr).toBe(0);
      const rows = (imported.json as { rows: number }).rows;
      expect(first(target)).toMatchObject({
        seq: 1,
        data: { command: "import", input: { file }, rows, outcome: "ok" },
      });
      expect(cairn(target, ["audit", "verify"]).code).toBe(0);
    } finally {
      scratch.cleanup();
    }
  });

  it("shortcut runs are audited with their exit code; reads are not audited", () => {
    const count = lines().length;
    cairn(ws.dir, ["task", "list"]);
    expect(lines()).toHaveLength(count);
    cairn(ws.dir, [
      "shortcut",
      "add",
      "hello",
      "--argv",
      process.execPath,
      "--argv",
      "-e",
      "--argv",
      "process.exit(3)",
      "--effect",
      "read",
    ]);
    cairn(ws.dir, ["shortcut", "run", "hello"]);
    const last = JSON.parse(lines().at(-1) as string);
    expect(last).toMatchObject({
      event: "command",
      data: { command: "shortcut run", exit_code: 3, outcome: "ok" },
    });
    const tail = cairn(ws.dir, ["audit", "tail", "--lines", "2", "--json"]);
    expect(
      (tail.json as { entries: { data: { command: string } }[] }).entries.map((e) => e.data.command),
    ).toEqual(["shortcut add", "shortcut run"]);
  });

  it("an agent's write with a long input still names its command, its caller and how it ended: refused or done", () => {
    const held = cairn(ws.dir, ["task", "add", "the owner's epic", "--json"]).json as {
      task: { id: string };
    };
    expect(cairn(ws.dir, ["task", "claim", held.task.id]).code).toBe(0);
    const probe = addAgent(ws.dir, "prober", "builder");
    const as = { env: { CAIRN_AGENT: probe.token } };
    // Twelve criteria of 900 characters each: every one within its limit.
    const criteria = Array.from({ length: 12 }, (_, n) => ["--criteria", `${"x".repeat(900)}${n}`]).flat();
    const refused = cairn(ws.dir, ["task", "add", "a part", "--parent", held.task.id, ...criteria], as);
    expect(refused.code, refused.stderr).toBe(3);
    const done = cairn(ws.dir, ["task", "add", "its own", ...criteria], as);
    expect(done.code, done.stderr).toBe(0);
    const [first, second] = lines()
      .slice(-2)
      .map((line) => JSON.parse(line) as { actor: string; data: Record<string, unknown> });
    expect(first).toMatchObject({
      actor: `${probe.id}:prober`,
      data: { command: "task add", effect: "write", outcome: "refused", policy: "ownership" },
    });
    expect(second).toMatchObject({
      actor: `${probe.id}:prober`,
      data: { command: "task add", effect: "write", outcome: "ok" },
    });
    // What it was asked to do is there too, cut: its title and the first of its criteria.
    expect(second?.data.input).toMatchObject({ title: "its own" });
    for (const line of lines().slice(-2)) expect(Buffer.byteLength(line)).toBeLessThan(16 * 1024);
    expect(cairn(ws.dir, ["audit", "verify"]).code).toBe(0);
  });

  it("`audit verify` exits non-zero naming the first edited line", () => {
    const original = readFileSync(auditPath(), "utf8");
    const all = original.trimEnd().split("\n");
    const target = 7;
    all[target - 1] = (all[target - 1] as string).replace('"ts":"20', '"ts":"21');
    writeFileSync(auditPath(), `${all.join("\n")}\n`);
    const broken = cairn(ws.dir, ["audit", "verify"]);
    expect(broken.code).toBe(5);
    expect(broken.stderr).toContain(`audit.jsonl line ${target}`);
    writeFileSync(auditPath(), original);
    expect(cairn(ws.dir, ["audit", "verify"]).code).toBe(0);
  });

  it("`audit verify --anchor` catches what the chain alone cannot: a cut tail, and a log rewritten whole", () => {
    // Each check from a machine that never verified this log: only the chain and the anchor given
    // judge it (the next test covers the witness a machine keeps).
    const machines: { cleanup: () => void }[] = [];
    const onNewMachine = () => {
      const home = scratchDir("cairn-other-machine-");
      machines.push(home);
      return { env: { CAIRN_HOME: home.dir } };
    };
    const builder = addAgent(ws.dir, "tailcutter", "builder");
    // The writes this test cuts away for good are witnessed on a machine of their own.
    const writes = onNewMachine();
    for (const title of ["one", "two", "three"])
      expect(cairn(ws.dir, ["task", "add", title], writes).code).toBe(0);
    const head = (cairn(ws.dir, ["audit", "verify", "--json"], onNewMachine()).json as { head: string }).head;
    expect(head).toMatch(/^\d+:[0-9a-f]{64}$/);
    const original = readFileSync(auditPath(), "utf8");
    const anchored = () => cairn(ws.dir, ["audit", "verify", "--anchor", head], onNewMachine());
    const asBuilder = { env: { ...writes.env, CAIRN_AGENT: builder.token } };
    expect(cairn(ws.dir, ["task", "add", "more work"], asBuilder).code).toBe(0);
    expect(anchored().code).toBe(0);

    // A shortcut (a child of cairn, as any verify command) cuts the last lines: the chain still holds.
    // Three lines before the anchored one are kept: the run's own line follows them.
    const keep = original.trimEnd().split("\n").length - 3;
    const cut = `head -n ${keep} .cairn/audit.jsonl > .cairn/cut.tmp && mv .cairn/cut.tmp .cairn/audit.jsonl`;
    expect(
      cairn(
        ws.dir,
        ["shortcut", "add", "tidy", "--argv", "sh", "--argv", "-c", "--argv", cut, "--effect", "read"],
        asBuilder,
      ).code,
    ).toBe(0);
    const tidy = cairn(ws.dir, ["shortcut", "run", "tidy", "--json"], asBuilder);
    expect(tidy.json, tidy.stderr).toMatchObject({ exit_code: 0 });
    expect(cairn(ws.dir, ["audit", "verify"], onNewMachine()).code).toBe(0);
    const cutRun = anchored();
    expect(cutRun.code).toBe(5);
    expect(cutRun.stderr).toMatch(/anchored entry \d+ is not in the log/);

    // The whole log rewritten and re-hashed, as long as before, its last line now another command.
    writeFileSync(auditPath(), forgedLog(original));
    expect(cairn(ws.dir, ["audit", "verify"], onNewMachine()).code).toBe(0);
    const rewritten = anchored();
    expect(rewritten.code).toBe(5);
    expect(rewritten.stderr).toMatch(/is not the anchored one.*rewritten/);

    writeFileSync(auditPath(), original);
    expect(anchored().code).toBe(0);
    expect(cairn(ws.dir, ["audit", "verify", "--anchor", "12:beef"]).code).toBe(2);
    for (const machine of machines) machine.cleanup();
  });

  it("a plain `audit verify` checks the head the last one on this machine saw: a cut tail or a rewrite fails with no anchor given", () => {
    const home = scratchDir("cairn-witness-home-");
    const machine = { env: { CAIRN_HOME: home.dir } };
    const builder = addAgent(ws.dir, "witnessed", "builder");
    const verify = () => cairn(ws.dir, ["audit", "verify", "--json"], machine);
    const first = verify();
    expect(first.code, first.stderr).toBe(0);
    const witness = (first.json as { head: string; witness: { file: string; checked: null; holds: string } })
      .witness;
    expect(witness).toMatchObject({ checked: null, holds: (first.json as { head: string }).head });
    // Kept on the machine, never in the workspace an agent's shell writes.
    expect(witness.file.startsWith(home.dir)).toBe(true);
    const original = readFileSync(auditPath(), "utf8");
    expect(
      cairn(ws.dir, ["task", "add", "witnessed work"], { env: { CAIRN_AGENT: builder.token } }).code,
    ).toBe(0);
    const second = verify();
    expect(second.code, second.stderr).toBe(0);
    expect(second.json).toMatchObject({ witness: { checked: witness.holds } });
    const withNewWork = readFileSync(auditPath(), "utf8");

    // The builder's line cut off again: the chain alone holds, the witness does not.
    writeFileSync(auditPath(), original);
    const cut = verify();
    expect(cut.code).toBe(5);
    expect(cut.stderr).toMatch(/witnessed entry \d+ is not in the log.*lines were cut/);
    expect(cut.stderr).toContain(witness.file);
    // Nor did the failed verify move the witness back to the shorter log.
    expect(verify().code).toBe(5);

    writeFileSync(auditPath(), forgedLog(withNewWork));
    const rewritten = verify();
    expect(rewritten.code).toBe(5);
    expect(rewritten.stderr).toMatch(/is not the witnessed one.*rewritten/);

    // A witness someone edited is no witness: named, never skipped.
    writeFileSync(auditPath(), withNewWork);
    expect(verify().code).toBe(0);
    writeFileSync(witness.file, '{"format":"cairn-audit-witness/1","seq":1}\n');
    const damaged = verify();
    expect(damaged.code).toBe(5);
    expect(damaged.stderr).toContain(`the audit witness ${witness.file} is damaged`);
    // A person removing it starts a new one.
    rmSync(witness.file);
    expect(verify().json).toMatchObject({ witness: { checked: null } });
    home.cleanup();
  });

  it("the witness follows where the workspace is found: .cairn moved and linked back in its place still fails a cut log", () => {
    onItsOwnMachine(2, (dir, machine) => {
      // What an agent's shell can do inside the project: cut the log, and move the folder
      // behind a link so that its real path, and so the witness's name, change.
      const log = join(dir, ".cairn", "audit.jsonl");
      writeFileSync(log, `${readFileSync(log, "utf8").split("\n")[0]}\n`);
      renameSync(join(dir, ".cairn"), join(dir, ".cairn-moved"));
      symlinkSync(".cairn-moved", join(dir, ".cairn"));
      const moved = cairn(dir, ["audit", "verify"], machine);
      expect(moved.code, moved.stdout).toBe(5);
      expect(moved.stderr).toMatch(/witnessed entry 3 is not in the log/);
    });
  });

  // A database file to link to is the embedded store's; a shared store's checkouts each keep a log.
  it.skipIf(STORE_UNDER_TEST === "postgres")(
    "a folder whose cairn.db links to the board's database writes the board's log, and a cut of its lines fails the board's verify",
    () => {
      onItsOwnMachine(1, (dir, machine) => {
        // A folder an agent made to reach the board through CAIRN_DIR, with a cairn.toml of its own.
        const shadow = join(dir, "shadow");
        mkdirSync(join(shadow, ".cairn"), { recursive: true });
        symlinkSync(join(dir, ".cairn", "cairn.db"), join(shadow, ".cairn", "cairn.db"));
        writeFileSync(join(shadow, ".cairn", "cairn.toml"), "");
        const through = { env: { ...machine.env, CAIRN_DIR: shadow } };
        expect(cairn(dir, ["task", "add", "added through the other folder"], through).code).toBe(0);
        expect(existsSync(join(shadow, ".cairn", "audit.jsonl"))).toBe(false);
        const log = join(dir, ".cairn", "audit.jsonl");
        const lines = readFileSync(log, "utf8").trimEnd().split("\n");
        expect(lines.at(-1)).toContain("added through the other folder");
        // Its line cut off the board's log: the board's own verify fails, as the write through the
        // other folder moved the board's witness.
        writeFileSync(log, `${lines.slice(0, -1).join("\n")}\n`);
        const cut = cairn(dir, ["audit", "verify"], machine);
        expect(cut.code, cut.stdout).toBe(5);
        expect(cut.stderr).toMatch(/witnessed entry \d+ is not in the log/);
      });
    },
  );

  // What an agent's shell in the project can do: the log follows the database's link, so a board
  // whose cairn.db is moved to a folder of the agent's and linked back reads a log the agent wrote.
  it.skipIf(STORE_UNDER_TEST === "postgres")(
    "a board whose cairn.db is moved elsewhere and linked back still holds its own witness: a log cut there fails",
    () => {
      onItsOwnMachine(2, (dir, machine) => {
        const elsewhere = join(dir, "elsewhere");
        mkdirSync(elsewhere);
        for (const name of ["cairn.db", "cairn.db-wal", "cairn.db-shm"])
          if (existsSync(join(dir, ".cairn", name)))
            renameSync(join(dir, ".cairn", name), join(elsewhere, name));
        symlinkSync(join(elsewhere, "cairn.db"), join(dir, ".cairn", "cairn.db"));
        const log = readFileSync(join(dir, ".cairn", "audit.jsonl"), "utf8");
        writeFileSync(join(elsewhere, "audit.jsonl"), `${log.split("\n")[0]}\n`);
        const moved = cairn(dir, ["audit", "verify"], machine);
        expect(moved.code, moved.stdout).toBe(5);
        expect(moved.stderr).toMatch(/witnessed entry \d+ is not in the log/);
      });
    },
  );

  it("a workspace made anew at the same path starts a new witness: init does not inherit the old log's", () => {
    onItsOwnMachine(3, (dir, machine) => {
      rmSync(join(dir, ".cairn"), { recursive: true, force: true });
      expect(cairn(dir, ["init"], machine).code).toBe(0);
      const fresh = cairn(dir, ["audit", "verify", "--json"], machine);
      expect(fresh.code, fresh.stderr).toBe(0);
      // The new log's own first line is what the machine witnessed, not the old log's third.
      expect(fresh.json).toMatchObject({ entries: 1, witness: { checked: expect.stringMatching(/^1:/) } });
    });
  });

  /**
   * The log as the last verify left it, put back by `steps` (an agent's shell can write it)
   * around writes of their own: the plain verify after them fails, saying `why`.
   */
  const failsCutBack = (
    dir: string,
    machine: { env: Record<string, string> },
    steps: (putBack: () => void) => void,
    why: RegExp,
  ) => {
    const log = join(dir, ".cairn", "audit.jsonl");
    const verified = readFileSync(log, "utf8");
    steps(() => writeFileSync(log, verified));
    const cut = cairn(dir, ["audit", "verify"], machine);
    expect(cut.code, cut.stdout).toBe(5);
    expect(cut.stderr).toMatch(why);
  };
  const add = (dir: string, title: string, machine: { env: Record<string, string> }) =>
    expect(cairn(dir, ["task", "add", title], machine).code).toBe(0);

  it("a tail cut of lines written since the last verify fails a plain verify: each write moves the witness", () => {
    onItsOwnMachine(1, (dir, machine) =>
      failsCutBack(
        dir,
        machine,
        (putBack) => {
          add(dir, "after the verify", machine);
          putBack();
        },
        /witnessed entry 3 is not in the log/,
      ),
    );
  });

  it("a log cut and grown back by later writes past the witnessed entry fails a plain verify: the witness moves only along the chain", () => {
    onItsOwnMachine(2, (dir, machine) =>
      failsCutBack(
        dir,
        machine,
        (putBack) => {
          add(dir, "c", machine);
          add(dir, "d", machine);
          // The two lines cut, then two writes of the agent's own: seq 4 and 5 again.
          putBack();
          add(dir, "e", machine);
          add(dir, "f", machine);
        },
        /entry 5 is not the witnessed one/,
      ),
    );
  });

  it("a write under another CAIRN_HOME does not stop this machine's witness following later writes", () => {
    onItsOwnMachine(1, (dir, machine) =>
      failsCutBack(
        dir,
        machine,
        (putBack) => {
          const elsewhere = scratchDir("cairn-witness-elsewhere-");
          try {
            add(dir, "elsewhere", { env: { CAIRN_HOME: elsewhere.dir } });
          } finally {
            elsewhere.cleanup();
          }
          add(dir, "here", machine);
          putBack();
        },
        /witnessed entry 4 is not in the log/,
      ),
    );
  });

  it("the witness follows the chain through rotations: a cooperative log verifies, a cut after a rotation fails", () => {
    onItsOwnMachine(0, (dir, machine) => {
      writeFileSync(
        join(dir, ".cairn", "cairn.toml"),
        `${readFileSync(join(dir, ".cairn", "cairn.toml"), "utf8")}\n[audit]\nmax_bytes = 600\n`,
      );
      for (let n = 1; n <= 4; n++) expect(cairn(dir, ["task", "add", `task ${n}`], machine).code).toBe(0);
      const intact = cairn(dir, ["audit", "verify", "--json"], machine);
      expect(intact.code, intact.stderr).toBe(0);
      expect((intact.json as { files: string[] }).files.length).toBeGreaterThan(2);
      const log = join(dir, ".cairn", "audit.jsonl");
      const before = readFileSync(log, "utf8");
      expect(cairn(dir, ["task", "add", "after a rotation"], machine).code).toBe(0);
      // The write rotated (the live file holds its seam and its line): the witness is its line.
      expect(readFileSync(log, "utf8").startsWith(before)).toBe(false);
      writeFileSync(log, `${readFileSync(log, "utf8").split("\n")[0]}\n`);
      const cut = cairn(dir, ["audit", "verify"], machine);
      expect(cut.code, cut.stdout).toBe(5);
      expect(cut.stderr).toMatch(/is not in the log/);
    });
  });

  it("a write whose audit line cannot be written is not done: a folder or a link to /dev/null in the log's place", () => {
    expect(cairn(ws.dir, ["task", "add", "an audited write"]).code).toBe(0);
    const saved = `${auditPath()}.saved`;
    renameSync(auditPath(), saved);
    try {
      for (const plant of [() => mkdirSync(auditPath()), () => symlinkSync("/dev/null", auditPath())]) {
        plant();
        try {
          const added = cairn(ws.dir, ["task", "add", "unaudited write", "--json"]);
          expect(added.code).toBe(1);
          expect(added.stderr).toContain("audit");
        } finally {
          rmSync(auditPath(), { recursive: true, force: true });
        }
      }
    } finally {
      renameSync(saved, auditPath());
    }
    const listed = cairn(ws.dir, ["task", "list", "--json"]);
    expect(listed.stdout).not.toContain("unaudited write");
    const v = cairn(ws.dir, ["audit", "verify"]);
    expect(v.code, v.stderr).toBe(0);
  });

  it("a write killed after it committed, before its audit line, still gets its line: recorded as interrupted", async () => {
    const { dir, cleanup } = initWorkspace();
    try {
      const logLines = () =>
        readFileSync(join(dir, ".cairn", "audit.jsonl"), "utf8")
          .trimEnd()
          .split("\n");
      // Holding the log's lock stops the call at its audit append, after its write committed.
      const lock = new Database(join(dir, ".cairn", "audit.lock"));
      lock.exec("BEGIN EXCLUSIVE");
      const title = "killed before its audit line";
      try {
        const child = spawn(process.execPath, [CAIRN_BIN, "task", "add", title], {
          cwd: dir,
          env: cleanEnv(),
          stdio: "ignore",
        });
        const closed = new Promise((resolve) => child.on("close", resolve));
        await until(() => cairn(dir, ["task", "list", "--json"]).stdout.includes(title), 20_000);
        child.kill("SIGKILL");
        await closed;
      } finally {
        lock.exec("COMMIT");
        lock.close();
      }
      const linesOf = () =>
        logLines()
          .map(
            (line) =>
              JSON.parse(line) as { actor: string; data: { input?: { title?: string }; outcome?: string } },
          )
          .filter((entry) => entry.data.input?.title === title);
      expect(linesOf()).toEqual([]);
      // The next verify (as the next write would) appends the line the killed call could not.
      const verified = cairn(dir, ["audit", "verify"]);
      expect(verified.code, verified.stderr).toBe(0);
      expect(cairn(dir, ["task", "add", "a later write"]).code).toBe(0);
      const recorded = linesOf();
      expect(recorded).toHaveLength(1);
      expect(recorded[0]).toMatchObject({
        actor: "cairn",
        data: { command: "task add", outcome: "interrupted", caller_claimed: "owner" },
      });
      const pending = join(dir, ".cairn", "audit-pending");
      expect(existsSync(pending) ? readdirSync(pending) : []).toEqual([]);
      expect(cairn(dir, ["audit", "verify"]).code).toBe(0);
      // A record planted there (any process that can write .cairn can) frames no one: cairn
      // appends it as its own line, the caller only as the file claims it.
      const planted = {
        format: "cairn-audit-pending/1",
        pid: 999_999_999,
        start: null,
        event: { severity: "notice", event: "command", actor: "A-7", data: { command: "fact forget" } },
      };
      writeFileSync(join(pending, "999999999-abcdef.json"), JSON.stringify(planted));
      expect(cairn(dir, ["task", "add", "after the plant"]).code).toBe(0);
      const framed = logLines()
        .map((line) => JSON.parse(line) as { actor: string; data: Record<string, unknown> })
        .find((entry) => entry.data.command === "fact forget");
      expect(framed).toMatchObject({
        actor: "cairn",
        data: { caller_claimed: "A-7", outcome: "interrupted" },
      });
    } finally {
      cleanup();
    }
  }, 30_000);

  it("a line torn by a writer stopped mid-write is named, and once the next write links across it verify passes", () => {
    const { dir, cleanup } = initWorkspace();
    try {
      const log = join(dir, ".cairn", "audit.jsonl");
      expect(cairn(dir, ["task", "add", "before the tear"]).code).toBe(0);
      const whole = readFileSync(log, "utf8").trimEnd().split("\n");
      // What a writer killed part way through its line leaves: the start of a line, unterminated.
      writeFileSync(log, `${readFileSync(log, "utf8")}${(whole.at(-1) as string).slice(0, 90)}`);
      // At the end it cannot be told from an edit yet: the next write links across it.
      const torn = cairn(dir, ["audit", "verify"]);
      expect(torn.code).toBe(5);
      expect(torn.stderr).toContain("line 3: the last line is not terminated: a write stopped part way");
      expect(cairn(dir, ["task", "add", "after the tear"]).code).toBe(0);
      const after = cairn(dir, ["audit", "verify"]);
      expect(after.code, after.stderr).toBe(0);
      expect(after.stdout).toContain("Audit chain intact: 3 entries");
      expect(after.stdout).toMatch(/Torn write .*audit\.jsonl line 3\./);
      // An entry edited into a fragment is not a tear: the line after still names it.
      const lines = readFileSync(log, "utf8").trimEnd().split("\n");
      lines[1] = (lines[1] as string).slice(0, 90);
      writeFileSync(log, `${lines.join("\n")}\n`);
      const edited = cairn(dir, ["audit", "verify"]);
      expect(edited.code).toBe(5);
      expect(edited.stderr).toContain("line 2");
    } finally {
      cleanup();
    }
  });

  it("a line the disk cannot take whole is cut off again, never witnessed, and appended once there is room", () => {
    const { dir, cleanup } = initWorkspace();
    try {
      const state = join(dir, ".cairn");
      const limit = 256 * 1024;
      padLog(state, limit - 100);
      // A file size limit takes part of the line, as a full disk does (and says so only in the count).
      const limited = spawnSync(
        "bash",
        [
          "-c",
          `ulimit -f ${limit / 1024} && exec "$0" "$@"`,
          process.execPath,
          CAIRN_BIN,
          "task",
          "add",
          "over the limit",
        ],
        { cwd: dir, env: cleanEnv(), encoding: "utf8" },
      );
      expect(limited.stdout).toContain("over the limit");
      expect(limited.stderr).toContain("the line was not appended");
      expect(readFileSync(join(state, "audit.jsonl")).length).toBe(limit - 100);
      // With room again, the next write appends the call's line before its own.
      expect(cairn(dir, ["task", "add", "with room"]).code).toBe(0);
      const verified = cairn(dir, ["audit", "verify"]);
      expect(verified.code, verified.stderr).toBe(0);
      const outcomes = readFileSync(join(state, "audit.jsonl"), "utf8")
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as { data: { input?: { title?: string }; outcome?: string } })
        .filter((entry) => entry.data.input?.title === "over the limit")
        .map((entry) => entry.data.outcome);
      expect(outcomes).toEqual(["interrupted"]);
    } finally {
      cleanup();
    }
  });
});
