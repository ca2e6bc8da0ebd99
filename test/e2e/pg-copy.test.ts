import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, connectMcp } from "../helpers/mcp.js";
import { holdWorkspaceLock } from "../helpers/pg-lock.js";
import {
  addAgent,
  arrange,
  CAIRN_BIN,
  cairn,
  cairnAsync,
  cleanEnv,
  runSync,
  scratchDir,
  testPgUrl,
} from "../helpers/workspace.js";

/** Moving a workspace between SQLite and PostgreSQL, and the two stores agreeing row for row. */
const sqliteOnly = { CAIRN_STORE_URL: undefined };
let scratch: { dir: string; cleanup: () => void };
const stamp = Date.now().toString(36);
const urlFor = (schema: string) => `${testPgUrl()}?schema=${schema}`;

/**
 * `cairn ARGS` started while another session holds `schema`'s workspace lock, once it waits on
 * that lock: the caller signals it and releases the lock in the order its test needs, then ends
 * the lock. `exited` gives the exit code, the whole stderr, and when the process ended.
 */
async function waitingOnTheLock(cwd: string, args: string[], schema: string) {
  const lock = await holdWorkspaceLock(schema);
  const child = spawn(process.execPath, [CAIRN_BIN, ...args], { cwd, env: cleanEnv(sqliteOnly) });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; stderr: string; at: number }>((resolve) =>
    child.on("close", (code) => resolve({ code, stderr, at: Date.now() })),
  );
  try {
    await lock.someoneWaits();
  } catch (error) {
    child.kill("SIGKILL");
    await lock.end();
    throw error;
  }
  return { lock, exited, signal: (signal: NodeJS.Signals) => child.kill(signal) };
}

/** `goal plan G-1` with milestones of these keys, each titled by its key. */
const planOf = (...keys: string[]) => [
  "goal",
  "plan",
  "G-1",
  ...keys.flatMap((key) => ["--milestones", JSON.stringify({ key, title: key })]),
];

/**
 * A goal whose plan dropped its last milestone, M-3, in `dir` (made a git checkout, which a plan
 * needs): the next milestone planned is M-4 wherever the workspace goes.
 */
function dropLastMilestone(dir: string, env: Record<string, string | undefined>): void {
  runSync("git", ["init", "-q"], dir);
  for (const args of [["goal", "create", "ship the importer"], planOf("a", "b", "c"), planOf("a", "b")]) {
    const result = cairn(dir, args, { env });
    expect(result.code, result.stderr).toBe(0);
  }
}

/** The id the next milestone planned in `dir` gets. */
function nextMilestone(dir: string, env: Record<string, string | undefined>): string {
  if (!existsSync(join(dir, ".git"))) runSync("git", ["init", "-q"], dir);
  const planned = cairn(dir, [...planOf("a", "b", "d"), "--json"], { env });
  expect(planned.code, planned.stderr).toBe(0);
  return (planned.json as { milestones: { id: string; key: string }[] }).milestones.find((m) => m.key === "d")
    ?.id as string;
}

beforeAll(() => {
  scratch = scratchDir();
});
afterAll(() => scratch.cleanup());

/**
 * The same operations, through the real faces, on whichever store the workspace uses. A board
 * that is only the ground a test stands on gets its commands `via` the in-thread arranger; the
 * MCP calls, whose check starts a process, always go to a spawned server.
 */
async function exercise(
  dir: string,
  env: Record<string, string | undefined>,
  via: typeof cairn = cairn,
): Promise<void> {
  const run = (args: string[]) => {
    const result = via(dir, args, { env });
    if (result.code !== 0) throw new Error(`${args.join(" ")}: ${result.stderr}`);
    return result;
  };
  run(["task", "add", "parent", "--labels", "api"]);
  run(["task", "add", "child", "--parent", "T-1", "--priority", "must"]);
  run(["task", "criterion", "T-2", "--text", "tests pass", "--verify", "true"]);
  run(["task", "add", "later", "--depends-on", "T-2"]);
  // A tree moved under a task made after it: its rows come before their new parent's.
  run(["task", "move", "T-1", "--parent", "T-3"]);
  const bob = addAgent(dir, "bob", "builder");
  run(["note", "add", "decision", "--chose", "postgres", "--rejected", "dolt", "--because", "teams run it"]);
  const mcp = await connectMcp(dir, { env: { ...env, CAIRN_AGENT: bob.token } });
  try {
    for (const [tool, args] of [
      ["claim_task", { task: "T-2" }],
      ["check_task", { task: "T-2", n: 1 }],
      ["remember", { text: 'NUL \u0000 inside, café, and {"b":1,"a":2}', topics: ["edge"] }],
      ["remember", { text: "leases are renewed by every call", topics: ["tasks"] }],
    ] as const) {
      const result = await callTool(mcp, tool, args as Record<string, unknown>);
      if (result.isError) throw new Error(`${tool}: ${JSON.stringify(result.content)}`);
    }
  } finally {
    await mcp.close();
  }
  run(["forget", "F-2", "--confirm"]);
  run(["remember", "ids are never reused", "--topics", "store"]);
}

const exportOf = (dir: string, env: Record<string, string | undefined>) => {
  const result = cairn(dir, ["export"], { env });
  expect(result.code, result.stderr).toBe(0);
  return result.stdout;
};

/** The header's cairn.toml names each workspace and its store; the rows are what must agree. */
const withoutConfig = (jsonl: string) => {
  const [header, ...rows] = jsonl.split("\n");
  const { config: _config, ...rest } = JSON.parse(header as string) as Record<string, unknown>;
  return [JSON.stringify(rest), ...rows].join("\n");
};

/** Clock readings, random ids and token hashes differ between two runs; everything else may not. */
const normalise = (jsonl: string) =>
  withoutConfig(jsonl)
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, "<time>")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>")
    .replace(/[0-9a-f]{64}/g, "<hash>")
    .replace(/duration_ms(\\?)":[0-9.]+/g, 'duration_ms$1":0')
    .replace(new RegExp(scratch.dir.replaceAll("/", "\\/"), "g"), "<dir>")
    .replace(/\/(sqlite|pg)\b/g, "/<ws>");

describe("store copy and export parity", () => {
  it("the same operations exported from each store give the same export", async () => {
    const lite = join(scratch.dir, "sqlite");
    const shared = join(scratch.dir, "pg");
    for (const dir of [lite, shared])
      arrange(scratch.dir, ["init"], { env: { ...sqliteOnly, CAIRN_DIR: dir } });
    cairn(scratch.dir, ["init", "--store", urlFor(`parity-${stamp}`)], {
      env: { ...sqliteOnly, CAIRN_DIR: `${shared}-2` },
    });
    const pgDir = `${shared}-2`;
    await exercise(lite, sqliteOnly);
    await exercise(pgDir, sqliteOnly);
    const a = normalise(exportOf(lite, sqliteOnly)).replace(/\/<ws>-2/g, "/<ws>");
    const b = normalise(exportOf(pgDir, sqliteOnly)).replace(/\/<ws>-2/g, "/<ws>");
    expect(b.split("\n").length).toBeGreaterThan(20);
    expect(b).toBe(a);
  });

  it("copies SQLite → PostgreSQL → SQLite losslessly: exports equal, 2^53+1, NUL and key order exact; bad bytes refused", async () => {
    const dir = join(scratch.dir, "move");
    arrange(scratch.dir, ["init"], { env: { ...sqliteOnly, CAIRN_DIR: dir } });
    await exercise(dir, sqliteOnly, arrange);
    const file = join(dir, ".cairn", "cairn.db");
    const raw = new Database(file);
    raw.prepare("UPDATE facts SET seen_count = 9007199254740993 WHERE id = 'F-1'").run();
    raw.prepare("UPDATE notes SET author = CAST(X'C328' AS TEXT) WHERE id = 'N-1'").run();
    raw.close();

    const refused = cairn(dir, ["store", "copy", "--to", urlFor(`bad-${stamp}`)], { env: sqliteOnly });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/notes\.author \(rowid 1\) holds bytes that are not UTF-8/);
    const fix = new Database(file);
    fix.prepare("UPDATE notes SET author = 'owner' WHERE id = 'N-1'").run();
    fix.close();

    const there = cairn(dir, ["store", "copy", "--to", urlFor(`moved-${stamp}`), "--json"], {
      env: sqliteOnly,
    });
    expect(there.code, there.stderr).toBe(0);
    expect(there.json).toMatchObject({ verified: true });
    const onPg = { CAIRN_STORE_URL: urlFor(`moved-${stamp}`) };
    expect(exportOf(dir, onPg)).toBe(exportOf(dir, sqliteOnly));

    const client = new pg.Client({ connectionString: testPgUrl() });
    await client.connect();
    const exact = await client.query(
      `SELECT seen_count::text AS n, text FROM "moved-${stamp}".facts WHERE id = 'F-1'`,
    );
    await client.end();
    expect(exact.rows[0]).toEqual({
      n: "9007199254740993",
      text: 'NUL \u0000 inside, café, and {"b":1,"a":2}'.replace("\u0000", "\uE0000"),
    });

    // A path past an id's 200 characters: `--to` here is a path, not a role as in `ask --to`.
    const deep = join(scratch.dir, "d".repeat(120), "e".repeat(120));
    mkdirSync(deep, { recursive: true });
    const back = join(deep, "back.db");
    const home = cairn(dir, ["store", "copy", "--to", back, "--json"], { env: onPg });
    expect(home.code, home.stderr).toBe(0);
    const copied = new Database(back, { readonly: true });
    copied.defaultSafeIntegers(true);
    expect(copied.prepare("SELECT seen_count FROM facts WHERE id = 'F-1'").get()).toEqual({
      seen_count: 9007199254740993n,
    });
    copied.close();
    // A fact id forgotten before the moves is still never handed out again.
    const next = cairn(dir, ["remember", "after two moves"], { env: onPg });
    expect(next.stdout).toContain("F-4");
  });
});

describe("many rows at a statement", () => {
  /**
   * The exercised board's export with 1,234 more events: rows of one table go into PostgreSQL
   * many to an INSERT, and these cross every boundary that batching has (a full group and a rest,
   * a column order that changes mid-table, NUL and other text that needs escaping on the way).
   */
  async function bulkExport(name: string): Promise<string> {
    const dir = join(scratch.dir, name);
    arrange(scratch.dir, ["init"], { env: { ...sqliteOnly, CAIRN_DIR: dir } });
    await exercise(dir, sqliteOnly, arrange);
    const [header, ...rows] = exportOf(dir, sqliteOnly).trimEnd().split("\n");
    const event = JSON.parse(rows.find((line) => line.startsWith('{"table":"events"')) as string) as {
      row: Record<string, unknown>;
    };
    const extra = Array.from({ length: 1_234 }, (_, i) => {
      const row = {
        ...event.row,
        id: 10_000 + i,
        subject: `T-${i} \u0000 café "quoted" \\ ${"é".repeat(i % 5)}`,
      };
      // Every 97th row lists its columns in another order: a batch ends there and a new one starts.
      const ordered = i % 97 === 0 ? Object.fromEntries(Object.entries(row).reverse()) : row;
      return JSON.stringify({ table: "events", row: ordered });
    });
    const counted = { ...(JSON.parse(header as string) as object), rows: rows.length + extra.length };
    const file = join(scratch.dir, `${name}.jsonl`);
    writeFileSync(file, `${[JSON.stringify(counted), ...rows, ...extra].join("\n")}\n`);
    return file;
  }

  it("an import and a store copy of a board with 1,234 rows in one table give the same export as SQLite", async () => {
    const file = await bulkExport("bulk-source");
    const lite = join(scratch.dir, "bulk-lite");
    const shared = join(scratch.dir, "bulk-pg");
    for (const dir of [lite, shared]) mkdirSync(dir);
    expect(cairn(lite, ["import", file], { env: sqliteOnly }).code).toBe(0);
    const imported = cairn(shared, ["import", file, "--store", urlFor(`bulk-${stamp}`)], { env: sqliteOnly });
    expect(imported.code, imported.stderr).toBe(0);
    const rows = (dir: string, env: Record<string, string | undefined> = sqliteOnly) =>
      normalise(exportOf(dir, env)).replace(/bulk-(lite|pg)/g, "<t>");
    const fromLite = rows(lite);
    expect(fromLite.split("\n").length).toBeGreaterThan(1_250);
    expect(rows(shared)).toBe(fromLite);

    const copied = cairn(lite, ["store", "copy", "--to", urlFor(`bulk-copy-${stamp}`), "--json"], {
      env: sqliteOnly,
    });
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.json).toMatchObject({ verified: true });
    expect(rows(lite, { CAIRN_STORE_URL: urlFor(`bulk-copy-${stamp}`) })).toBe(fromLite);
  });
});

describe("a password in the store URL's query", () => {
  it("is used to connect but never stored in cairn.toml nor shown by init, store copy or status", () => {
    const secret = "query-staple-9";
    const withSecret = (schema: string) => `${testPgUrl()}?password=${secret}&schema=${schema}`;
    const dir = join(scratch.dir, "query-password");
    const made = cairn(scratch.dir, ["init", "--store", withSecret(`qp-${stamp}`), "--json"], {
      env: { ...sqliteOnly, CAIRN_DIR: dir },
    });
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout + made.stderr).not.toContain(secret);
    expect(readFileSync(join(dir, ".cairn", "cairn.toml"), "utf8")).not.toContain(secret);

    const status = cairn(dir, ["status", "--json"], { env: { CAIRN_STORE_URL: withSecret(`qp-${stamp}`) } });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout + status.stderr).not.toContain(secret);

    const lite = join(scratch.dir, "query-password-lite");
    arrange(scratch.dir, ["init"], { env: { ...sqliteOnly, CAIRN_DIR: lite } });
    const copied = cairn(lite, ["store", "copy", "--to", withSecret(`qp-copy-${stamp}`), "--json"], {
      env: sqliteOnly,
    });
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stdout + copied.stderr).not.toContain(secret);
  });
});

describe("a password parameter spelt percent-encoded, as the driver decodes it", () => {
  it("is never shown in an error: not for a URL that is not PostgreSQL's, nor for a server out of reach", () => {
    const dir = join(scratch.dir, "encoded-password");
    arrange(scratch.dir, ["init"], { env: { ...sqliteOnly, CAIRN_DIR: dir } });
    for (const url of [
      "postgre://alice@db.example:5432/team?pass%77ord=Hunter2Secret",
      "postgres://alice@127.0.0.1:1/team?schema=s&pass%77ord=Hunter2Secret",
      "postgres://alice@127.0.0.1:99999/team?pass%77ord=Hunter2Secret",
    ]) {
      const status = cairn(dir, ["status", "--json"], { env: { CAIRN_STORE_URL: url } });
      expect(status.code, url).not.toBe(0);
      expect(status.stdout + status.stderr, url).not.toContain("Hunter2Secret");
    }
    // The URL is quoted, its password masked, where it is refused for its scheme.
    const foreign = cairn(dir, ["status", "--json"], {
      env: { CAIRN_STORE_URL: "postgre://alice@db.example:5432/team?pass%77ord=Hunter2Secret" },
    });
    expect(foreign.stderr).toContain("postgre://alice@db.example:5432/team?pass%77ord=***");
  });
});

describe("ids forgotten before a copy", () => {
  it("PostgreSQL → SQLite: a table whose every row was deleted still never hands an old id out again, nor does a plan its dropped milestone's", () => {
    const dir = join(scratch.dir, "all-forgotten");
    const onPg = { CAIRN_STORE_URL: urlFor(`forgotten-${stamp}`) };
    arrange(scratch.dir, ["init", "--store", onPg.CAIRN_STORE_URL], {
      env: { ...sqliteOnly, CAIRN_DIR: dir },
    });
    for (const args of [
      ["remember", "alpha is the first fact"],
      ["remember", "beta is the second fact"],
      ["forget", "F-1", "--confirm"],
      ["forget", "F-2", "--confirm"],
    ]) {
      const result = cairn(dir, args, { env: onPg });
      expect(result.code, result.stderr).toBe(0);
    }
    dropLastMilestone(dir, onPg);
    // The copy becomes a SQLite workspace's database, as `store copy` tells the owner to do.
    const lite = join(scratch.dir, "all-forgotten-lite");
    arrange(scratch.dir, ["init"], { env: { ...sqliteOnly, CAIRN_DIR: lite } });
    const back = join(scratch.dir, "all-forgotten.db");
    const copied = cairn(dir, ["store", "copy", "--to", back, "--json"], { env: onPg });
    expect(copied.code, copied.stderr).toBe(0);
    renameSync(back, join(lite, ".cairn", "cairn.db"));
    const next = cairn(lite, ["remember", "gamma after the move"], { env: sqliteOnly });
    expect(next.code, next.stderr).toBe(0);
    expect(next.stdout).toContain("F-3");
    expect(nextMilestone(lite, sqliteOnly)).toBe("M-4");
  });
});

describe("a source a newer cairn migrated", () => {
  const future = "9999_future_reviews";

  it("PostgreSQL → SQLite: refused as every other command refuses it, not copied without the newer tables", async () => {
    const schema = `newer-${stamp}`;
    const dir = join(scratch.dir, "newer-pg");
    const onPg = { CAIRN_STORE_URL: urlFor(schema) };
    arrange(scratch.dir, ["init", "--store", onPg.CAIRN_STORE_URL], {
      env: { ...sqliteOnly, CAIRN_DIR: dir },
    });
    expect(cairn(dir, ["task", "add", "x"], { env: onPg }).code).toBe(0);
    const admin = new pg.Client({ connectionString: testPgUrl() });
    await admin.connect();
    try {
      await admin.query(`INSERT INTO "${schema}".schema_migrations VALUES ($1, 'x')`, [future]);
      await admin.query(`CREATE TABLE "${schema}".reviews (id text PRIMARY KEY, body text)`);
      await admin.query(`INSERT INTO "${schema}".reviews VALUES ('R-1', 'a newer cairn wrote this')`);
    } finally {
      await admin.end();
    }
    expect(cairn(dir, ["status"], { env: onPg }).code).toBe(1);
    const target = join(scratch.dir, "newer-pg.db");
    const copied = cairn(dir, ["store", "copy", "--to", target, "--json"], { env: onPg });
    expect(copied.code, copied.stdout).toBe(1);
    expect(copied.stderr).toContain("newer cairn");
    expect(existsSync(target)).toBe(false);
  });

  it("SQLite → PostgreSQL: refused before the target schema is made", async () => {
    const dir = join(scratch.dir, "newer-lite");
    arrange(scratch.dir, ["init"], { env: { ...sqliteOnly, CAIRN_DIR: dir } });
    expect(cairn(dir, ["task", "add", "x"], { env: sqliteOnly }).code).toBe(0);
    const db = new Database(join(dir, ".cairn", "cairn.db"));
    try {
      db.prepare("INSERT INTO schema_migrations (name, applied_at) VALUES (?, 'x')").run(future);
    } finally {
      db.close();
    }
    const schema = `newer-target-${stamp}`;
    const copied = cairn(dir, ["store", "copy", "--to", urlFor(schema), "--json"], { env: sqliteOnly });
    expect(copied.code, copied.stdout).toBe(1);
    expect(copied.stderr).toContain("newer cairn");
    const admin = new pg.Client({ connectionString: testPgUrl() });
    await admin.connect();
    try {
      const made = await admin.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
      expect(made.rowCount).toBe(0);
    } finally {
      await admin.end();
    }
  });
});

describe("a copy while the source is written", () => {
  it("is checked against the source as it read it: a write meanwhile is not reported as a bug", async () => {
    const dir = join(scratch.dir, "written-meanwhile");
    arrange(scratch.dir, ["init"], { env: { ...sqliteOnly, CAIRN_DIR: dir } });
    expect(cairn(dir, ["task", "add", "before the copy"], { env: sqliteOnly }).code).toBe(0);
    const schema = `meanwhile-${stamp}`;
    // Hold the target's workspace lock: the copy has read its source and waits to write.
    const lock = await holdWorkspaceLock(schema);
    try {
      const copying = cairnAsync(dir, ["store", "copy", "--to", urlFor(schema), "--json"], {
        env: sqliteOnly,
      });
      await lock.someoneWaits();
      expect(cairn(dir, ["task", "add", "during the copy"], { env: sqliteOnly }).code).toBe(0);
      await lock.release();
      const copied = await copying;
      expect(copied.code, copied.stderr).toBe(0);
      const there = cairn(dir, ["task", "list", "--json"], { env: { CAIRN_STORE_URL: urlFor(schema) } });
      expect((there.json as { tasks: { title: string }[] }).tasks.map((t) => t.title)).toEqual([
        "before the copy",
      ]);
    } finally {
      await lock.end();
    }
  });
});

describe("a copy to PostgreSQL cancelled (Ctrl-C) while it waits for the target", () => {
  it("rolls back: the target holds no workspace, as the message says, and the copy runs again", async () => {
    const dir = join(scratch.dir, "copy-cancelled");
    arrange(scratch.dir, ["init"], { env: { ...sqliteOnly, CAIRN_DIR: dir } });
    expect(cairn(dir, ["task", "add", "copied once"], { env: sqliteOnly }).code).toBe(0);
    const schema = `copy-cancelled-${stamp}`;
    const copy = await waitingOnTheLock(dir, ["store", "copy", "--to", urlFor(schema)], schema);
    let exit: { code: number | null; stderr: string };
    try {
      // Ctrl-C while the copy waits; then the target is free and the copy goes on to write.
      copy.signal("SIGINT");
      await new Promise((resolve) => setTimeout(resolve, 200));
      await copy.lock.release();
      exit = await copy.exited;
    } finally {
      await copy.lock.end();
    }
    expect(exit.code, exit.stderr).toBe(130);
    expect(exit.stderr).toMatch(/cancelled: the copy was stopped and nothing was written/);
    const again = cairn(dir, ["store", "copy", "--to", urlFor(schema), "--json"], { env: sqliteOnly });
    expect(again.code, again.stderr).toBe(0);
  });
});

describe("a copy to PostgreSQL stopped (SIGTERM) while it waits for the target", () => {
  it("says so; the schema it made is refused by commands, which write nothing there, and the copy runs again", async () => {
    const dir = join(scratch.dir, "copy-stopped");
    arrange(scratch.dir, ["init"], { env: { ...sqliteOnly, CAIRN_DIR: dir } });
    const schema = `copy-stopped-${stamp}`;
    const copy = await waitingOnTheLock(dir, ["store", "copy", "--to", urlFor(schema)], schema);
    let exit: { code: number | null; stderr: string };
    try {
      // The target schema is made (migrated) before the copy waits: the stop leaves it, empty.
      copy.signal("SIGTERM");
      exit = await copy.exited;
    } finally {
      await copy.lock.end();
    }
    expect(exit.code).toBe(143);
    expect(exit.stderr).toMatch(/stopped: the copy to .* was stopped and nothing was written/);
    // A command on that schema was accepted and wrote into a board with no workspace id; the
    // copy run again was then refused, the schema no longer empty.
    const added = cairn(dir, ["task", "add", "into a half-made schema", "--json"], {
      env: { CAIRN_STORE_URL: urlFor(schema) },
    });
    expect(added.code).toBe(1);
    expect(added.stderr).toMatch(/no finished cairn workspace .* was stopped before it finished/);
    expect(added.stderr).toMatch(/next: run that command again .* or drop the schema/);
    const again = cairn(dir, ["store", "copy", "--to", urlFor(schema), "--json"], { env: sqliteOnly });
    expect(again.code, again.stderr).toBe(0);
  });
});

describe("importing an export into a shared store", () => {
  /**
   * A SQLite workspace with a board, notes, memory, an agent and a role, exported to a file: made
   * once for the tests here, which only read the file, each importing it into a schema of its own.
   */
  let source: Promise<{ file: string }> | undefined;
  async function exportOnce(): Promise<{ file: string }> {
    const dir = join(scratch.dir, "import-source");
    arrange(scratch.dir, ["init"], { env: { ...sqliteOnly, CAIRN_DIR: dir } });
    await exercise(dir, sqliteOnly, arrange);
    const file = join(scratch.dir, "import-source.jsonl");
    expect(cairn(dir, ["export", "--out", file], { env: sqliteOnly }).code).toBe(0);
    return { file };
  }
  const exported = () => {
    source ??= exportOnce();
    return source;
  };

  it("an id forgotten before the export (a fact, a dropped milestone) is never handed out again, from either store into the other", () => {
    const forgetting = ["one fact", "two fact", "three fact"];
    const make = (name: string, env: Record<string, string | undefined>, store?: string) => {
      const dir = join(scratch.dir, name);
      const init = store ? ["init", "--store", store] : ["init"];
      expect(cairn(scratch.dir, init, { env: { ...sqliteOnly, CAIRN_DIR: dir } }).code).toBe(0);
      for (const text of forgetting) expect(cairn(dir, ["remember", text], { env }).code).toBe(0);
      for (const args of [
        ["forget", "F-3", "--confirm"],
        ["remember", "four fact"],
        ["forget", "F-4", "--confirm"],
      ])
        expect(cairn(dir, args, { env }).code).toBe(0);
      dropLastMilestone(dir, env);
      const file = join(scratch.dir, `${name}.jsonl`);
      expect(cairn(dir, ["export", "--out", file], { env }).code).toBe(0);
      return file;
    };
    const fromLite = make("forgot-lite", sqliteOnly);
    const fromPg = make("forgot-pg", sqliteOnly, urlFor(`forgot-src-${stamp}`));
    const intoPg = join(scratch.dir, "forgot-into-pg");
    mkdirSync(intoPg);
    const imported = cairn(intoPg, ["import", fromLite, "--store", urlFor(`forgot-into-${stamp}`)], {
      env: sqliteOnly,
    });
    expect(imported.code, imported.stderr).toBe(0);
    const intoLite = join(scratch.dir, "forgot-into-lite");
    mkdirSync(intoLite);
    expect(cairn(intoLite, ["import", fromPg], { env: sqliteOnly }).code).toBe(0);
    for (const dir of [intoPg, intoLite]) {
      const next = cairn(dir, ["remember", "after the import", "--json"], { env: sqliteOnly });
      expect((next.json as { id: string }).id, dir).toBe("F-5");
      expect(nextMilestone(dir, sqliteOnly), dir).toBe("M-4");
    }
  });

  it("restores into a new schema as SQLite restores it: the same rows, ids go on, the password is never written, and another checkout joins", async () => {
    const { file } = await exported();
    const secret = "import-staple-7";
    const schema = `imported-${stamp}`;
    const target = join(scratch.dir, "import-target");
    mkdirSync(target);
    const made = cairn(
      target,
      ["import", file, "--store", `${testPgUrl()}?password=${secret}&schema=${schema}`, "--json"],
      { env: sqliteOnly },
    );
    expect(made.code, made.stderr).toBe(0);
    expect(made.json).toMatchObject({ store: expect.stringContaining(`(schema ${schema})`) });
    expect(made.stdout + made.stderr).not.toContain(secret);
    const config = readFileSync(join(target, ".cairn", "cairn.toml"), "utf8");
    expect(config).not.toContain(secret);
    expect(config).toContain(`schema = "${schema}"`);
    // The exported roles came along: bob acts as a builder on the restored board.
    expect(config).toMatch(/\[roles\.builder\]/);

    // The same file restored into SQLite gives the same export, row for row.
    const lite = join(scratch.dir, "import-target-lite");
    mkdirSync(lite);
    expect(cairn(lite, ["import", file], { env: sqliteOnly }).code).toBe(0);
    const rows = (dir: string) =>
      normalise(exportOf(dir, sqliteOnly)).replace(/import-target(-lite)?/g, "<t>");
    expect(rows(target).split("\n").length).toBeGreaterThan(20);
    expect(rows(target)).toBe(rows(lite));

    // Later commands in the checkout find the board on PostgreSQL; ids go on from the export's.
    const task = cairn(target, ["task", "add", "after the restore", "--json"], { env: sqliteOnly });
    expect(task.code, task.stderr).toBe(0);
    expect(task.json).toMatchObject({ task: { id: "T-4" } });
    expect(cairn(target, ["remember", "restored facts go on"], { env: sqliteOnly }).stdout).toContain("F-4");

    const joiner = join(scratch.dir, "import-joiner");
    const joined = cairn(scratch.dir, ["init", "--store", urlFor(schema), "--json"], {
      env: { ...sqliteOnly, CAIRN_DIR: joiner },
    });
    expect(joined.code, joined.stderr).toBe(0);
    expect(joined.json).toMatchObject({ joined: true });
    const listed = cairn(joiner, ["task", "list", "--json"], { env: sqliteOnly });
    expect((listed.json as { tasks: { title: string }[] }).tasks.map((t) => t.title)).toContain(
      "after the restore",
    );
  });

  it("a shared workspace exported and imported again, twice, names its new store once, with one comment", () => {
    let from = join(scratch.dir, "again-0");
    cairn(scratch.dir, ["init", "--store", urlFor(`again-0-${stamp}`)], {
      env: { ...sqliteOnly, CAIRN_DIR: from },
    });
    // Each round's file is the first one's with only its schema changed: nothing grows per round.
    const withoutSchema = (round: number) =>
      readFileSync(join(scratch.dir, `again-${round}`, ".cairn", "cairn.toml"), "utf8").replace(
        `schema = "again-${round}-${stamp}"`,
        "schema = …",
      );
    for (const round of [1, 2]) {
      const file = join(scratch.dir, `again-${round}.jsonl`);
      expect(cairn(from, ["export", "--out", file], { env: sqliteOnly }).code).toBe(0);
      const to = join(scratch.dir, `again-${round}`);
      mkdirSync(to);
      const made = cairn(to, ["import", file, "--store", urlFor(`again-${round}-${stamp}`)], {
        env: sqliteOnly,
      });
      expect(made.code, made.stderr).toBe(0);
      const config = readFileSync(join(to, ".cairn", "cairn.toml"), "utf8");
      expect(config.match(/^\[store\]$/gm)).toHaveLength(1);
      expect(config.match(/Never put a password here/g)).toHaveLength(1);
      expect(config).toContain(`schema = "again-${round}-${stamp}"`);
      expect(withoutSchema(round)).toBe(withoutSchema(0));
      from = to;
    }
  });

  it("with CAIRN_STORE_URL set, lands where every later command in that environment looks", async () => {
    const { file } = await exported();
    const onPg = { CAIRN_STORE_URL: urlFor(`import-env-${stamp}`) };
    const target = join(scratch.dir, "import-env-target");
    mkdirSync(target);
    const made = cairn(target, ["import", file], { env: onPg });
    expect(made.code, made.stderr).toBe(0);
    const recalled = cairn(target, ["recall", "reused", "--json"], { env: onPg });
    expect(recalled.code, recalled.stderr).toBe(0);
    expect((recalled.json as { facts: { text: string }[] }).facts.map((fact) => fact.text)).toContain(
      "ids are never reused",
    );
  });

  it("refuses a schema that already holds a workspace, changing nothing there and leaving nothing here", async () => {
    const { file } = await exported();
    const schema = `import-taken-${stamp}`;
    const owner = join(scratch.dir, "import-taken-owner");
    arrange(scratch.dir, ["init", "--store", urlFor(schema)], { env: { ...sqliteOnly, CAIRN_DIR: owner } });
    expect(cairn(owner, ["task", "add", "theirs"], { env: sqliteOnly }).code).toBe(0);
    const before = exportOf(owner, sqliteOnly);

    const target = join(scratch.dir, "import-taken-target");
    mkdirSync(target);
    const refused = cairn(target, ["import", file, "--store", urlFor(schema), "--json"], { env: sqliteOnly });
    expect(refused.code, refused.stderr).toBe(5);
    expect(refused.json).toMatchObject({
      error: {
        kind: "conflict",
        message: expect.stringContaining(`"${schema}"`),
        next: expect.stringContaining(`cairn init --store`),
      },
    });
    expect(existsSync(join(target, ".cairn"))).toBe(false);
    expect(exportOf(owner, sqliteOnly)).toBe(before);
  });

  it("a damaged export writes nothing: the schema takes the whole file afterwards", async () => {
    const { file } = await exported();
    const lines = readFileSync(file, "utf8").split("\n");
    const cut = join(scratch.dir, "import-cut.jsonl");
    writeFileSync(cut, `${lines.slice(0, -3).join("\n")}\n`);
    const schema = `import-cut-${stamp}`;
    const target = join(scratch.dir, "import-cut-target");
    mkdirSync(target);
    const refused = cairn(target, ["import", cut, "--store", urlFor(schema)], { env: sqliteOnly });
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/truncated/);
    expect(existsSync(join(target, ".cairn"))).toBe(false);
    const whole = cairn(target, ["import", file, "--store", urlFor(schema), "--json"], { env: sqliteOnly });
    expect(whole.code, whole.stderr).toBe(0);
    expect((whole.json as { rows: number }).rows).toBe(lines.filter((line) => line !== "").length - 1);
  });

  it("a row the store refuses mid-file is the error named, not the inserts sent after it; nothing is written", async () => {
    const { file } = await exported();
    const [header, ...rows] = readFileSync(file, "utf8").trimEnd().split("\n");
    // A journal event twice, with many rows still to come: the inserts after it travel in the
    // same window and fail only because the transaction already has.
    const at = rows.findIndex((row) => JSON.parse(row).table === "events");
    expect(rows.length - at).toBeGreaterThan(10);
    rows.splice(at + 1, 0, rows[at] as string);
    const counted = { ...JSON.parse(header as string), rows: rows.length };
    const dup = join(scratch.dir, "import-dup.jsonl");
    writeFileSync(dup, `${[JSON.stringify(counted), ...rows].join("\n")}\n`);
    const schema = `import-dup-${stamp}`;
    const target = join(scratch.dir, "import-dup-target");
    mkdirSync(target);
    const refused = cairn(target, ["import", dup, "--store", urlFor(schema), "--json"], { env: sqliteOnly });
    expect(refused.code, refused.stderr).toBe(5);
    expect(refused.json).toMatchObject({
      error: { kind: "conflict", message: expect.stringMatching(/events_pkey/) },
    });
    expect(refused.stdout).not.toMatch(/aborted/);
    expect(existsSync(join(target, ".cairn"))).toBe(false);
    const whole = cairn(target, ["import", file, "--store", urlFor(schema)], { env: sqliteOnly });
    expect(whole.code, whole.stderr).toBe(0);
  });

  it("cancelled (Ctrl-C) while it waits for the schema, rolls back: nothing imported, as it says, and the retry succeeds", async () => {
    const { file } = await exported();
    const schema = `import-cancel-${stamp}`;
    const target = join(scratch.dir, "import-cancel-target");
    mkdirSync(target);
    const restore = await waitingOnTheLock(target, ["import", file, "--store", urlFor(schema)], schema);
    let exit: { code: number | null; stderr: string };
    try {
      restore.signal("SIGINT");
      await new Promise((resolve) => setTimeout(resolve, 200));
      await restore.lock.release();
      exit = await restore.exited;
    } finally {
      await restore.lock.end();
    }
    expect(exit.code, exit.stderr).toBe(130);
    expect(exit.stderr).toMatch(/cancelled: the import was stopped and nothing was imported/);
    expect(existsSync(join(target, ".cairn"))).toBe(false);
    const again = cairn(target, ["import", file, "--store", urlFor(schema)], { env: sqliteOnly });
    expect(again.code, again.stderr).toBe(0);
  });

  it("stopped (SIGTERM) while it waits for the schema, exits at once and leaves neither a workspace nor a folder", async () => {
    const { file } = await exported();
    const schema = `import-stop-${stamp}`;
    const target = join(scratch.dir, "import-stop-target");
    mkdirSync(target);
    const restore = await waitingOnTheLock(target, ["import", file, "--store", urlFor(schema)], schema);
    try {
      // The lock stays held: the import must exit on the signal itself, not once it could go on.
      const stoppedAt = Date.now();
      restore.signal("SIGTERM");
      const exit = await restore.exited;
      expect(exit.code).toBe(143);
      expect(exit.at - stoppedAt).toBeLessThan(5_000);
      expect(existsSync(join(target, ".cairn"))).toBe(false);
    } finally {
      await restore.lock.end();
    }
    const again = cairn(target, ["import", file, "--store", urlFor(schema)], { env: sqliteOnly });
    expect(again.code, again.stderr).toBe(0);
  });
});

describe("a checkout whose committed cairn.toml names no store", () => {
  it("init --store records the store there, so the checkout's later commands find the board", () => {
    const dir = join(scratch.dir, "committed-config");
    mkdirSync(join(dir, ".cairn"), { recursive: true });
    writeFileSync(join(dir, ".cairn", "cairn.toml"), '[roles.builder]\nsummary = "builds"\n');
    const made = cairn(dir, ["init", "--store", urlFor(`committed-${stamp}`)], { env: sqliteOnly });
    expect(made.code, made.stderr).toBe(0);
    const status = cairn(dir, ["status", "--json"], { env: sqliteOnly });
    expect(status.code, status.stderr).toBe(0);
    expect(readFileSync(join(dir, ".cairn", "cairn.toml"), "utf8")).toMatch(/^\[roles\.builder\]/);
  });

  it("a FIFO in cairn.toml's place: init --store says what to write there instead of waiting for a reader", () => {
    const dir = join(scratch.dir, "committed-fifo");
    mkdirSync(join(dir, ".cairn"), { recursive: true });
    expect(spawnSync("mkfifo", [join(dir, ".cairn", "cairn.toml")]).status).toBe(0);
    const made = cairn(dir, ["init", "--store", urlFor(`committed-fifo-${stamp}`), "--json"], {
      env: sqliteOnly,
      timeoutMs: 10_000,
    });
    expect(made.code, made.stderr).toBe(1);
    expect(made.json).toMatchObject({
      error: { kind: "operational", next: expect.stringContaining(`schema = "committed-fifo-${stamp}"`) },
    });
  });
});
