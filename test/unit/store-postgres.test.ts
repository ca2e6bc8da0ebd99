import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CairnError } from "../../src/kernel/outcome.js";
import { openStore } from "../../src/store/open.js";
import { pgMigrationsAt } from "../../src/store/postgres/migrate.js";
import { PG_MIGRATIONS, SHARED_PG_MIGRATIONS } from "../../src/store/postgres/migrations/index.js";
import { MIGRATIONS } from "../../src/store/sqlite/migrations/index.js";
import type { Store } from "../../src/store/store.js";
import { journalEvent as event } from "../helpers/contract-stores.js";
import { newTask } from "../helpers/new-task.js";
import { testPgUrl } from "../helpers/workspace.js";

/** What only the PostgreSQL store has to prove: the database's own guards, locks and faults. */
const open = (schema: string, create = true): Store =>
  openStore({ kind: "postgres", url: testPgUrl(), schema }, { create });
const task = (title: string) => newTask(title);

let raw: pg.Client;
beforeAll(async () => {
  raw = new pg.Client({ connectionString: testPgUrl() });
  await raw.connect();
});
afterAll(async () => {
  await raw.end();
});

describe("PostgreSQL store", () => {
  it("ports every SQLite migration, by name and in order", () => {
    expect(SHARED_PG_MIGRATIONS.map((m) => m.name)).toEqual(MIGRATIONS.map((m) => m.name));
    for (const own of PG_MIGRATIONS.filter((m) => m.pgOnly)) expect(own.name).toMatch(/^pg_\d{4}_/);
    // A schema at an earlier shared version (an older export's) holds those, and what came before.
    for (let schema = 1; schema < MIGRATIONS.length; schema++) {
      const held = pgMigrationsAt(schema);
      expect(held.filter((m) => !m.pgOnly).map((m) => m.name)).toEqual(
        MIGRATIONS.slice(0, schema).map((m) => m.name),
      );
      expect(held.at(-1)?.name).toBe(MIGRATIONS[schema - 1]?.name);
    }
    expect(pgMigrationsAt(MIGRATIONS.length)).toEqual(PG_MIGRATIONS);
  });

  it("makes every reference checkable at the commit, and checks it row by row unless deferred", async () => {
    const schema = `deferrable-${randomUUID()}`;
    const store = open(schema);
    await store.write(async (tx) => {
      await tx.journal.append(event("x"));
    });
    await store.close();
    const references = async () =>
      (
        await raw.query<{ conname: string; condeferrable: boolean; condeferred: boolean }>(
          `SELECT c.conname, c.condeferrable, c.condeferred FROM pg_constraint c
           JOIN pg_namespace s ON s.oid = c.connamespace WHERE c.contype = 'f' AND s.nspname = $1`,
          [schema],
        )
      ).rows;
    expect((await references()).length).toBeGreaterThan(10);
    expect((await references()).filter((r) => !r.condeferrable || r.condeferred)).toEqual([]);
    // A schema made before pg_0104: its references as they were, then the migration's own SQL.
    await raw.query(`SET search_path TO "${schema}"`);
    for (const { conname } of await references()) {
      const table = (
        await raw.query<{ relname: string }>(
          "SELECT t.relname FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid WHERE c.conname = $1 AND c.connamespace = $2::regnamespace",
          [conname, `"${schema}"`],
        )
      ).rows[0]?.relname;
      await raw.query(`ALTER TABLE "${table}" ALTER CONSTRAINT "${conname}" NOT DEFERRABLE`);
    }
    expect((await references()).every((r) => !r.condeferrable)).toBe(true);
    const migration = PG_MIGRATIONS.find((m) => m.name === "pg_0104_deferrable_references");
    await raw.query(migration?.sql({ unaccent: null }) ?? "");
    expect((await references()).filter((r) => !r.condeferrable || r.condeferred)).toEqual([]);
    await raw.query("RESET search_path");
  });

  it("refuses UPDATE, DELETE and TRUNCATE of the journal in the database itself", async () => {
    const schema = `guard-${randomUUID()}`;
    const store = open(schema);
    await store.write(async (tx) => {
      await tx.journal.append(event("x"));
    });
    await store.close();
    for (const sql of ["UPDATE events SET action = 'y'", "DELETE FROM events", "TRUNCATE events"]) {
      await expect(raw.query(`SET search_path TO "${schema}"; ${sql}`)).rejects.toThrow(/append-only/);
    }
  });

  it("serialises writers of one workspace like BEGIN IMMEDIATE: 8 connections, read-check-claim, one winner each round", async () => {
    const schema = `race-${randomUUID()}`;
    const stores = Array.from({ length: 8 }, () => open(schema));
    try {
      for (let round = 0; round < 10; round++) {
        const id = await stores[0]?.write(async (tx) => {
          const made = await tx.tasks.insert(task(`t${round}`), "2026-01-01T00:00:00.000Z");
          await tx.journal.append(event("task.add"));
          return made.id;
        });
        const wins = await Promise.all(
          stores.map((store, i) =>
            store.write(async (tx) => {
              const current = await tx.tasks.byId(id as string);
              if (current?.owner) return false;
              await tx.tasks.update(
                id as string,
                { status: "active", owner: `A-${i}` },
                "2026-01-01T00:00:00.000Z",
              );
              await tx.journal.append(event("task.claim"));
              return true;
            }),
          ),
        );
        expect(wins.filter(Boolean)).toHaveLength(1);
      }
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it("keeps several workspaces in one database apart, one schema each", async () => {
    const a = open(`ws-a-${randomUUID()}`);
    const b = open(`ws-b-${randomUUID()}`);
    try {
      await a.write(async (tx) => {
        await tx.tasks.insert(task("only in a"), "2026-01-01T00:00:00.000Z");
        await tx.journal.append(event("task.add"));
      });
      expect((await b.read((tx) => tx.tasks.list({ limit: 10, offset: 0 }))).total).toBe(0);
      const first = await b.write(async (tx) => {
        const made = await tx.tasks.insert(task("only in b"), "2026-01-01T00:00:00.000Z");
        await tx.journal.append(event("task.add"));
        return made.id;
      });
      expect(first).toBe("T-1");
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("names the server when the schema holds no workspace, and refuses a newer one untouched", async () => {
    const missing = open(`absent-${randomUUID()}`, false);
    const failure = await missing.read((tx) => tx.meta.get("x")).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CairnError);
    expect((failure as Error).message).toMatch(/no cairn workspace on postgres@127\.0\.0\.1:\d+\/postgres/);
    await missing.close();
    const schema = `newer-${randomUUID()}`;
    const store = open(schema);
    await store.read((tx) => tx.meta.get("x"));
    await store.close();
    await raw.query(`INSERT INTO "${schema}".schema_migrations VALUES ('9999_future', 'x')`);
    const again = open(schema, false);
    await expect(again.read((tx) => tx.meta.get("x"))).rejects.toThrow(/newer cairn/);
    await again.close();
  });

  it("raises a counter once a statement for keys given, and brings a schema made before that up to it", async () => {
    const schema = `counters-${randomUUID()}`;
    const store = open(schema);
    await store.write(async (tx) => {
      await tx.journal.append(event("first"));
    });
    await store.close();
    /** The rows the last of `sql`'s statements gave, run in the schema. */
    const inSchema = async (sql: string) => {
      const results = (await raw.query(
        `SET search_path TO "${schema}"; ${sql}`,
      )) as unknown as pg.QueryResult[];
      return results.at(-1)?.rows ?? [];
    };
    const triggers = async (suffix: string) =>
      Number(
        (
          await inSchema(
            `SELECT count(*) AS n FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
             WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
               AND g.tgname = c.relname || '${suffix}'`,
          )
        )[0]?.n,
      );
    const counted = await triggers("_counter");
    expect(counted).toBeGreaterThan(20);
    expect(await triggers("_counter_raise")).toBe(counted);

    // As a schema made before pg_0103 has it: the counter raised by every row, no statement half.
    const oldFill = (column: string, name: string) =>
      `CREATE OR REPLACE FUNCTION cairn_fill_${name}() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN NEW.${column} := cairn_next(TG_TABLE_NAME, NEW.${column}); RETURN NEW; END $$;`;
    const drops = (
      await inSchema(
        `SELECT string_agg(format('DROP TRIGGER %I ON %I', g.tgname, c.relname), '; ') AS sql
         FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
         WHERE c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
           AND g.tgname LIKE '%\\_counter\\_raise'`,
      )
    )[0]?.sql as string;
    await inSchema(
      `${drops}; ${oldFill("seq", "seq")} ${oldFill("id", "id")} ${oldFill("_rowid", "rowid")}
       DELETE FROM schema_migrations WHERE name = 'pg_0103_counter_statements'`,
    );
    expect(await triggers("_counter_raise")).toBe(0);

    // Opened again, the migration puts every table's statement half in place.
    const again = open(schema, false);
    await again.write(async (tx) => {
      await tx.journal.append(event("after the upgrade"));
    });
    expect(await triggers("_counter_raise")).toBe(counted);
    // A key given raises the counter as its statement ends; the next key taken comes after it.
    await inSchema(
      "INSERT INTO events (id, at, actor, action, subject) VALUES (500, 'x', 'owner', 'given', 's'), (400, 'x', 'owner', 'given', 's')",
    );
    await again.write(async (tx) => {
      await tx.journal.append(event("taken"));
    });
    const ids = await inSchema("SELECT id, action FROM events ORDER BY id");
    expect(ids.map((row) => [Number(row.id), row.action])).toEqual([
      [1, "first"],
      [2, "after the upgrade"],
      [400, "given"],
      [500, "given"],
      [501, "taken"],
    ]);
    await again.close();
  });

  it("finds again a workspace whose schema name needs quoting: capitals, a quote, a dot, a space", async () => {
    const schema = `Team "A".b ${randomUUID().slice(0, 8)}`;
    const store = open(schema);
    await store.write(async (tx) => {
      await tx.meta.set("x", "kept");
      await tx.journal.append({
        at: "2026-01-01T00:00:00Z",
        actor: "owner",
        action: "test.set",
        subject: "x",
        data: {},
      });
    });
    await store.close();
    const again = open(schema, false);
    expect(await again.read((tx) => tx.meta.get("x"))).toBe("kept");
    await again.close();
    // Its lower-case twin is another schema, which holds no workspace.
    const twin = open(schema.toLowerCase(), false);
    await expect(twin.read((tx) => tx.meta.get("x"))).rejects.toThrow(/no cairn workspace/);
    await twin.close();
  });

  it("survives a connection killed mid-transaction: the call fails, nothing of it is kept, the next call reconnects", async () => {
    const schema = `drop-${randomUUID()}`;
    const store = open(schema);
    try {
      await store.write(async (tx) => {
        await tx.journal.append(event("before"));
      });
      const failed = store.write(async (tx) => {
        await tx.tasks.insert(task("lost with the connection"), "2026-01-01T00:00:00.000Z");
        // Only the backend holding this workspace's lock: other suites share the server.
        const killed = await raw.query(
          `SELECT pg_terminate_backend(l.pid) FROM pg_locks l, (SELECT hashtextextended($1, 0) AS h) k
           WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
             AND l.classid = ((k.h >> 32) & 4294967295)::oid AND l.objid = (k.h & 4294967295)::oid`,
          [`cairn:ws:${schema}`],
        );
        expect(killed.rowCount).toBe(1);
        await tx.journal.append(event("never"));
      });
      await expect(failed).rejects.toThrow(/connection|terminat/i);
      const after = await store.read(async (tx) => ({
        events: (await tx.journal.recent(10)).map((e) => e.action),
        tasks: (await tx.tasks.list({ limit: 10, offset: 0 })).total,
      }));
      expect(after).toEqual({ events: ["before"], tasks: 0 });
    } finally {
      await store.close();
    }
  });

  it("reports a writer stuck behind another's workspace lock as a timeout, saving nothing", async () => {
    const schema = `locked-${randomUUID()}`;
    const store = open(schema);
    await store.read((tx) => tx.meta.get("x"));
    await store.close();
    const holder = new pg.Client({ connectionString: testPgUrl() });
    await holder.connect();
    process.env.CAIRN_PG_TIMEOUT_MS = "300";
    const blocked = open(schema, false);
    try {
      await holder.query(`BEGIN; SELECT pg_advisory_xact_lock(hashtextextended('cairn:ws:${schema}', 0))`);
      const failure = await blocked
        .write(async (tx) => {
          await tx.journal.append(event("blocked"));
        })
        .catch((error: unknown) => error);
      expect((failure as CairnError).errorKind).toBe("operational");
      expect((failure as Error).message).toMatch(/locked by another writer/);
      await holder.query("ROLLBACK");
      await holder.query(`SET search_path TO "${schema}"; BEGIN; LOCK TABLE events IN ACCESS EXCLUSIVE MODE`);
      const slow = await blocked.read((tx) => tx.journal.recent(1)).catch((error: unknown) => error);
      expect((slow as Error).message).toMatch(/timeout/);
      await holder.query("ROLLBACK");
      expect(await blocked.read((tx) => tx.journal.recent(5))).toEqual([]);
    } finally {
      delete process.env.CAIRN_PG_TIMEOUT_MS;
      await blocked.close();
      await holder.end();
    }
  });
});
