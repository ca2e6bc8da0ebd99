import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enableIdentities, shellAgent, writeAgent } from "../helpers/agents.js";
import { callTool, connectMcp, type McpHandle } from "../helpers/mcp.js";
import { startPostgres } from "../helpers/pg-server.js";
import {
  addAgent,
  CAIRN_BIN,
  cairn,
  cairnAsync,
  cleanEnv,
  scratchDir,
  testPgUrl,
} from "../helpers/workspace.js";

/**
 * One board for a team: two checkouts ("machines") in different directories share one schema on
 * the run's PostgreSQL server, and every process of both races for the same work.
 */
let root: { dir: string; cleanup: () => void };
let laptop: string;
let runner: string;
const schema = `team-${Date.now().toString(36)}`;
const sharedEnv = { CAIRN_STORE_URL: undefined };

beforeAll(() => {
  root = scratchDir();
  laptop = join(root.dir, "laptop", "repo");
  runner = join(root.dir, "ci-runner", "work", "repo");
  mkdirSync(laptop, { recursive: true });
  mkdirSync(runner, { recursive: true });
  const url = `${testPgUrl()}?schema=${schema}`;
  const first = cairn(laptop, ["init", "--store", url, "--json"], { env: sharedEnv });
  expect(first.code).toBe(0);
  const second = cairn(runner, ["init", "--store", url, "--json"], { env: sharedEnv });
  expect(second.json).toMatchObject({
    joined: true,
    workspace_id: (first.json as { workspace_id: string }).workspace_id,
  });
});
afterAll(() => root.cleanup());

const structured = (result: unknown) =>
  (result as { structuredContent?: Record<string, unknown> }).structuredContent;

describe("PostgreSQL: one board across machines", () => {
  it("16 processes from two checkouts race for every task: each task is claimed exactly once", async () => {
    const tasks = 6;
    for (let i = 1; i <= tasks; i++)
      cairn(i % 2 ? laptop : runner, ["task", "add", `job ${i}`], { env: sharedEnv });
    const agents = Array.from({ length: 16 }, (_, i) =>
      addAgent(i < 8 ? laptop : runner, `racer${i}`, "builder"),
    );
    const servers: McpHandle[] = await Promise.all(
      agents.map((agent, i) =>
        connectMcp(i < 8 ? laptop : runner, { env: { ...sharedEnv, CAIRN_AGENT: agent.token } }),
      ),
    );
    try {
      const wins = new Map<string, string[]>();
      await Promise.all(
        servers.map(async (server, i) => {
          for (let t = 1; t <= tasks; t++) {
            const result = await callTool(server, "claim_task", { task: `T-${t}` });
            const content = structured(result);
            if (!result.isError && content && !("refused" in content)) {
              wins.set(`T-${t}`, [...(wins.get(`T-${t}`) ?? []), agents[i]?.id as string]);
            }
          }
        }),
      );
      expect([...wins.keys()].sort()).toHaveLength(tasks);
      for (const [id, owners] of wins) {
        expect(owners, `claims of ${id}`).toHaveLength(1);
        const shown = cairn(runner, ["task", "show", id, "--json"], { env: sharedEnv }).json as {
          task: { owner: string };
        };
        expect(shown.task.owner).toBe(owners[0]);
      }
    } finally {
      await Promise.all(servers.map((server) => server.close()));
    }
  }, 180_000);

  it("one checkout's memory is recalled by the other", () => {
    expect(
      cairn(laptop, ["remember", "the flaky e2e suite needs --runInBand on CI", "--topics", "ci"], {
        env: sharedEnv,
      }).code,
    ).toBe(0);
    const recalled = cairn(runner, ["recall", "flaky suite on CI", "--json"], { env: sharedEnv });
    expect(JSON.stringify(recalled.json)).toContain("runInBand");
  });

  it("writers killed with SIGKILL lose no acknowledged write", async () => {
    const writers = Array.from({ length: 12 }, (_, i) => {
      const child = spawn(process.execPath, [CAIRN_BIN, "remember", `durable fact number ${i}`, "--json"], {
        cwd: i % 2 ? laptop : runner,
        env: cleanEnv(sharedEnv),
      });
      const done = new Promise<boolean>((resolve) => child.on("close", (code) => resolve(code === 0)));
      // Half are killed at some point of their run: before, during or after their transaction.
      if (i % 2 === 0) setTimeout(() => child.kill("SIGKILL"), 150 + 60 * i);
      return { i, done };
    });
    const acknowledged = (await Promise.all(writers.map(async (w) => ((await w.done) ? w.i : -1)))).filter(
      (i) => i >= 0,
    );
    expect(acknowledged.length).toBeGreaterThanOrEqual(6);
    const stored = cairn(laptop, ["recall", "durable fact number", "--limit", "50", "--json"], {
      env: sharedEnv,
    });
    const text = JSON.stringify(stored.json);
    for (const i of acknowledged) expect(text).toContain(`durable fact number ${i}`);
    const status = cairn(runner, ["status", "--json"], { env: sharedEnv });
    expect(status.code).toBe(0);
  });
});

describe("PostgreSQL: a database whose default isolation is REPEATABLE READ", () => {
  it("writers still queue: parallel adds all succeed with ids in order, and a WIP cap of 1 lets one claim of six win", async () => {
    const database = `rr_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: testPgUrl() });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${database}`);
      await admin.query(`ALTER DATABASE ${database} SET default_transaction_isolation = 'repeatable read'`);
    } finally {
      await admin.end();
    }
    const url = new URL(testPgUrl());
    url.pathname = `/${database}`;
    url.searchParams.set("schema", "board");
    const dir = join(root.dir, "repeatable-read");
    mkdirSync(dir, { recursive: true });
    expect(cairn(dir, ["init", "--store", url.toString(), "--json"], { env: sharedEnv }).code).toBe(0);
    const adds = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        cairnAsync(dir, ["task", "add", `t${i}`, "--json"], { env: sharedEnv }),
      ),
    );
    for (const add of adds) expect(add.code, add.stderr).toBe(0);
    const ids = adds.map((add) => Number((add.json as { task: { id: string } }).task.id.slice(2)));
    expect(ids.sort((a, b) => a - b)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect(cairn(dir, ["role", "add", "solo", "--wip-cap", "1"], { env: sharedEnv }).code).toBe(0);
    const solo = addAgent(dir, "soloist", "solo");
    const claims = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        cairnAsync(dir, ["task", "claim", `T-${i + 1}`, "--json"], {
          env: { ...sharedEnv, CAIRN_AGENT: solo.token },
        }),
      ),
    );
    // One wins; the others are refused by the cap (exit 3), none fails.
    expect(claims.map((claim) => claim.code).sort()).toEqual([0, 3, 3, 3, 3, 3]);
  }, 120_000);
});

describe("PostgreSQL: a board named after its directory", () => {
  it("is not joined by another project's directory of the same name unless its schema is named", () => {
    const name = `app-${Date.now().toString(36)}`;
    const mine = join(root.dir, "alice", name);
    const theirs = join(root.dir, "bob", name);
    mkdirSync(mine, { recursive: true });
    mkdirSync(theirs, { recursive: true });
    const first = cairn(mine, ["init", "--store", testPgUrl(), "--json"], { env: sharedEnv });
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({ store: expect.stringContaining(`(schema ${name})`) });
    const second = cairn(theirs, ["init", "--store", testPgUrl(), "--json"], { env: sharedEnv });
    expect(second.code).toBe(5);
    expect(second.stderr).toContain("named after this directory, already holds a workspace");
    expect(second.stderr).toContain(`schema=${name}`);
    // Refused before anything was written: no half-made workspace is left behind.
    expect(existsSync(join(theirs, ".cairn"))).toBe(false);
    const joined = cairn(theirs, ["init", "--store", `${testPgUrl()}?schema=${name}`, "--json"], {
      env: sharedEnv,
    });
    expect(joined.json).toMatchObject({
      joined: true,
      workspace_id: (first.json as { workspace_id: string }).workspace_id,
    });
    // The joining checkout's own log starts with the init that joined it.
    const [line] = readFileSync(join(theirs, ".cairn", "audit.jsonl"), "utf8").split("\n");
    expect(JSON.parse(line as string)).toMatchObject({
      seq: 1,
      data: {
        command: "init",
        joined: true,
        workspace_id: (first.json as { workspace_id: string }).workspace_id,
      },
    });
  });

  it("refuses one of two projects of one name that initialise at the same moment, whichever comes second", async () => {
    for (let round = 0; round < 4; round++) {
      const name = `race-${round}-${Date.now().toString(36)}`;
      const dirs = ["carol", "dave"].map((who) => join(root.dir, who, name));
      for (const dir of dirs) mkdirSync(dir, { recursive: true });
      const runs = await Promise.all(
        dirs.map((dir) => cairnAsync(dir, ["init", "--store", testPgUrl(), "--json"], { env: sharedEnv })),
      );
      expect(runs.map((run) => run.code).sort(), runs.map((run) => run.stderr).join("\n")).toEqual([0, 5]);
      const loser = dirs[runs.findIndex((run) => run.code === 5)] as string;
      expect(existsSync(join(loser, ".cairn"))).toBe(false);
    }
  });
});

describe("PostgreSQL: a schema that holds another application's tables", () => {
  it("is not made a workspace: init, import and store copy are refused, nothing is added to it", async () => {
    const schema = `shop_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: testPgUrl() });
    await admin.connect();
    const tables = async () =>
      (
        await admin.query<{ name: string }>(
          "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1",
          [schema],
        )
      ).rows.map((row) => row.name);
    try {
      // The application's own tables, one of them named as one of cairn's.
      await admin.query(`CREATE SCHEMA ${schema}; CREATE TABLE ${schema}.customers (id int)`);
      await admin.query(`CREATE TABLE ${schema}.tasks (id int)`);
      const url = `${testPgUrl()}?schema=${schema}`;
      const dir = join(root.dir, "shop");
      mkdirSync(dir, { recursive: true });
      const init = cairn(dir, ["init", "--store", url, "--json"], { env: sharedEnv });
      expect(init.code, init.stderr).toBe(5);
      expect(init.stderr).toContain("holds tables that are not a cairn workspace");
      expect(init.stderr).toContain('"customers"');
      expect(existsSync(join(dir, ".cairn"))).toBe(false);
      // Without the clashing name, cairn's tables were added beside the application's.
      await admin.query(`DROP TABLE ${schema}.tasks`);
      expect(cairn(dir, ["init", "--store", url], { env: sharedEnv }).code).toBe(5);
      const local = join(root.dir, "shop-local");
      mkdirSync(local, { recursive: true });
      expect(cairn(local, ["init"], { env: sharedEnv }).code).toBe(0);
      const copy = cairn(local, ["store", "copy", "--to", url], { env: sharedEnv });
      expect(copy.code, copy.stderr).toBe(5);
      const backup = join(root.dir, "shop-backup.jsonl");
      writeFileSync(backup, cairn(local, ["export"], { env: sharedEnv }).stdout);
      const restore = join(root.dir, "shop-restore");
      mkdirSync(restore, { recursive: true });
      const imported = cairn(restore, ["import", backup, "--store", url], { env: sharedEnv });
      expect(imported.code, imported.stderr).toBe(5);
      expect(await tables()).toEqual(["customers"]);
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });
});

describe("PostgreSQL: credentials and faults", () => {
  it("a wrong password or an unreachable host: exit 1, the host named, the password never shown, nothing written", async () => {
    const server = await startPostgres({ password: "right-horse-battery" });
    const scratch = scratchDir();
    try {
      const url = `postgres://postgres:wrong-staple@127.0.0.1:${server.port}/postgres?schema=x`;
      const refused = cairn(scratch.dir, ["init", "--store", url]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`127.0.0.1:${server.port}`);
      expect(refused.stderr + refused.stdout).not.toContain("wrong-staple");
      expect(existsSync(join(scratch.dir, ".cairn", "cairn.toml"))).toBe(false);

      const ok = cairn(
        scratch.dir,
        ["init", "--store", `postgres://postgres@127.0.0.1:${server.port}/postgres`],
        {
          env: { PGPASSWORD: "right-horse-battery" },
        },
      );
      expect(ok.code).toBe(0);
      expect(cairn(scratch.dir, ["status"], { env: { PGPASSWORD: "nope" } }).code).toBe(1);

      // The password in ~/.pgpass, where the README says it may be: found, with nothing on stderr
      // (the driver, left to read the file itself, warned there that it will stop, on every call).
      const home = join(scratch.dir, "home");
      mkdirSync(home);
      writeFileSync(join(home, ".pgpass"), `127.0.0.1:${server.port}:*:postgres:right-horse-battery\n`, {
        mode: 0o600,
      });
      const fromFile = cairn(scratch.dir, ["status"], { env: { HOME: home, PGPASSWORD: undefined } });
      expect(fromFile.code, fromFile.stderr).toBe(0);
      expect(fromFile.stderr).toBe("");
      // PGPASSWORD still comes before the file, as it does for the driver and psql.
      expect(cairn(scratch.dir, ["status"], { env: { HOME: home, PGPASSWORD: "nope" } }).code).toBe(1);

      const unreachable = cairn(scratch.dir, ["status"], {
        env: { CAIRN_STORE_URL: "postgres://cairn:hunter2@127.0.0.1:1/postgres" },
      });
      expect(unreachable.code).toBe(1);
      expect(unreachable.stderr).toMatch(/cannot reach PostgreSQL at 127\.0\.0\.1:1/);
      // Said once as each call hook's warning, whatever number of hooks found it, and once as the error.
      expect(unreachable.stderr.match(/cannot reach PostgreSQL/g)).toHaveLength(2);
      expect(unreachable.stderr).not.toContain("hunter2");

      const toml = cairn(scratch.dir, ["status"], { env: { PGPASSWORD: "right-horse-battery" } });
      expect(toml.code).toBe(0);
    } finally {
      scratch.cleanup();
      await server.stop();
    }
  });

  it("a password parameter in CAIRN_STORE_URL, however spelt, reaches no verify command: not its evidence, not the export", () => {
    const dir = join(root.dir, "query-password");
    mkdirSync(dir, { recursive: true });
    const url = `${testPgUrl()}?schema=qp-${Date.now().toString(36)}`;
    const env = {
      CAIRN_STORE_URL: `${url}&password=QuerySecret1&pass%77ord=QuerySecret2&sslpassword=QuerySecret3`,
    };
    expect(cairn(dir, ["init", "--json"], { env }).code).toBe(0);
    expect(cairn(dir, ["task", "add", "print the store URL"], { env }).code).toBe(0);
    const criterion = ["task", "criterion", "T-1", "--text", "url", "--verify", "printenv", "--verify"];
    expect(cairn(dir, [...criterion, "CAIRN_STORE_URL"], { env }).code).toBe(0);
    expect(cairn(dir, ["task", "claim", "T-1"], { env }).code).toBe(0);
    const checked = cairn(dir, ["task", "check", "T-1", "--n", "1", "--json"], { env });
    expect(checked.code).toBe(0);
    const shown = cairn(dir, ["task", "show", "T-1", "--json"], { env }).stdout;
    // The child saw the URL (its output is the evidence), without any of the passwords: not even
    // their parameters, which masking the evidence would have left in place ("password=[redacted]").
    expect(shown).toContain(url.replace(/^.*\?/, ""));
    expect(shown).not.toMatch(/pass(word|%77ord)=/i);
    const exported = cairn(dir, ["export"], { env }).stdout;
    for (const text of [checked.stdout, shown, exported]) expect(text).not.toMatch(/QuerySecret/);
  });

  it("PGPASSWORD is the shared store's: no verify command gets it, while on a SQLite board it passes", () => {
    // The check prints how long the PGPASSWORD it was given is: a credential's value itself is
    // masked in the evidence cairn keeps, whoever's it is.
    const check = (dir: string, env: Record<string, string | undefined>) => {
      expect(cairn(dir, ["init", "--json"], { env }).code).toBe(0);
      const criterion = {
        text: "pw",
        verify: ["sh", "-c", 'echo "given:$(printf %s "$PGPASSWORD" | wc -c)"; echo "$PGPASSWORD"'],
      };
      const added = cairn(dir, ["task", "add", "print PGPASSWORD", "--criteria", JSON.stringify(criterion)], {
        env,
      });
      expect(added.code).toBe(0);
      expect(cairn(dir, ["task", "claim", "T-1"], { env }).code).toBe(0);
      cairn(dir, ["task", "check", "T-1", "--n", "1"], { env });
      return cairn(dir, ["task", "show", "T-1", "--json"], { env }).stdout;
    };
    const shared = join(root.dir, "pgpassword-shared");
    const local = join(root.dir, "pgpassword-local");
    mkdirSync(shared, { recursive: true });
    mkdirSync(local, { recursive: true });
    const sharedEnv = {
      CAIRN_STORE_URL: `${testPgUrl()}?schema=pgpw-${Date.now().toString(36)}`,
      PGPASSWORD: "StoreSecret77",
    };
    const sharedShown = check(shared, sharedEnv);
    expect(sharedShown).toContain("given:0");
    expect(sharedShown).not.toContain("StoreSecret77");
    const exported = cairn(shared, ["export"], { env: sharedEnv });
    expect(exported.code).toBe(0);
    expect(exported.stdout).not.toContain("StoreSecret77");
    // A SQLite board's PGPASSWORD is the user's own (a test suite's database): its checks get it,
    // and the evidence others read shows it masked.
    const localShown = check(local, { CAIRN_STORE_URL: undefined, PGPASSWORD: "UsersOwn77" });
    expect(localShown).toContain("given:10");
    expect(localShown).toContain("[redacted]");
    expect(localShown).not.toContain("UsersOwn77");
  });

  it("an agent run given the store's password to act on the board never writes it in its log or result", () => {
    const dir = join(root.dir, "run-password");
    mkdirSync(dir, { recursive: true });
    const url = `${testPgUrl().replace("postgres@", "postgres:User%40Part9@")}?schema=rp-${Date.now().toString(36)}`;
    const env = { CAIRN_STORE_URL: `${url}&password=QueryPart9`, PGPASSWORD: "EnvPart9" };
    expect(cairn(dir, ["init", "--json"], { env }).code).toBe(0);
    expect(cairn(dir, ["agent", "add", "printer-bot", "--role", "builder"], { env }).code).toBe(0);
    // Each password alone, as a program that picks the URL apart or prints its environment would.
    const script = [
      'echo "$PGPASSWORD"',
      `node -e 'const u = new URL(process.env.CAIRN_STORE_URL); console.log(u.password, decodeURIComponent(u.password), u.searchParams.get("password"))'`,
    ].join("; ");
    writeAgent(dir, "printer", shellAgent("printer", script, { rest: '[cairn]\nidentity = "printer-bot"' }));
    Object.assign(env, enableIdentities(dir, ["printer"], env));
    const run = cairn(dir, ["agents", "run", "printer", "--json"], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("[redacted]");
    const logs = cairn(dir, ["agents", "logs", "printer", "--json"], { env });
    expect(logs.code).toBe(0);
    for (const text of [run.stdout, run.stderr, logs.stdout]) expect(text).not.toMatch(/Part9/);
  });

  it("the server restarting under load: acknowledged writes survive, later calls reconnect", async () => {
    const server = await startPostgres();
    const scratch = scratchDir();
    try {
      expect(cairn(scratch.dir, ["init", "--store", server.url]).code).toBe(0);
      const mcp = await connectMcp(scratch.dir);
      const acknowledged: string[] = [];
      let failures = 0;
      let stop = false;
      const load = (async () => {
        for (let i = 0; !stop; i++) {
          const result = await callTool(mcp, "remember", { text: `under load ${i}` });
          if (result.isError) failures += 1;
          else acknowledged.push(`under load ${i}`);
        }
      })();
      while (acknowledged.length < 5) await new Promise((resolve) => setTimeout(resolve, 20));
      await server.restart();
      const before = acknowledged.length;
      while (acknowledged.length < before + 5) await new Promise((resolve) => setTimeout(resolve, 20));
      stop = true;
      await load;
      await mcp.close();
      const all = cairn(scratch.dir, ["recall", "under load", "--limit", "100", "--json"]);
      const text = JSON.stringify(all.json);
      for (const fact of acknowledged) expect(text).toContain(`"${fact}"`);
      // Only calls in flight when the server went down may fail; the next ones wait for it.
      expect(failures).toBeLessThanOrEqual(2);
    } finally {
      scratch.cleanup();
      await server.stop();
    }
  });
});
