import { spawnSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CairnError } from "../../src/kernel/outcome.js";
import { copyStore } from "../../src/store/copy.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { contractStores, journalEvent as event } from "../helpers/contract-stores.js";
import { sockets, socketsSettleAt, waitFor } from "../helpers/processes.js";
import { scratchDir } from "../helpers/workspace.js";

/**
 * Every store implementation must pass the contract below: the embedded SQLite file and a
 * schema on the run's PostgreSQL server. Tests that poke at SQLite's own files live in the
 * SQLite-only block further down; PostgreSQL's own are in store-postgres.test.ts.
 */
const IMPLEMENTATIONS = contractStores("contract");

let scratch: { dir: string; cleanup: () => void };
let path: string;
let store: Store;

beforeEach(() => {
  scratch = scratchDir();
  path = join(scratch.dir, "cairn.db");
  store = (IMPLEMENTATIONS[0] as (typeof IMPLEMENTATIONS)[number]).create(scratch.dir);
});
afterEach(async () => {
  await store.close();
  scratch.cleanup();
});

const newAgent = (name: string) => ({
  name,
  role: "builder",
  grant: "rw" as const,
  parentId: null,
  tokenHash: `h-${name}`,
});

describe.each(IMPLEMENTATIONS)("store contract: $name", ({ name, create }) => {
  beforeEach(async () => {
    await store.close();
    store = create(scratch.dir);
  });

  it("commits a journaled write and rolls back an unjournaled one", async () => {
    await store.write(async (tx) => {
      await tx.agents.insert(newAgent("alice"), "2026-01-01T00:00:00.000Z");
      await tx.journal.append(event("agent.add"));
    });
    await expect(
      store.write(async (tx) => {
        await tx.agents.insert(newAgent("bob"), "2026-01-01T00:00:00.000Z");
      }),
    ).rejects.toThrow(/not journaled/);
    const names = await store.read(async (tx) =>
      (await tx.agents.list({ includeRetired: true })).map((a) => a.name),
    );
    expect(names).toEqual(["alice"]);
  });

  it("replaces an active agent's token hash, and never a retired one's", async () => {
    const [alice, bob] = await store.write(async (tx) => {
      const added = [
        await tx.agents.insert(newAgent("alice"), "2026-01-01T00:00:00.000Z"),
        await tx.agents.insert(newAgent("bob"), "2026-01-01T00:00:00.000Z"),
      ];
      await tx.agents.retire(added[1]?.id as string, "2026-01-02T00:00:00.000Z");
      await tx.agents.replaceToken(added[0]?.id as string, "h-new");
      await tx.agents.replaceToken(added[1]?.id as string, "h-new-bob");
      await tx.journal.append(event("agent.rotate"));
      return added;
    });
    const hashOf = (id: string) => store.read(async (tx) => (await tx.agents.byId(id))?.tokenHash);
    expect(await hashOf(alice?.id as string)).toBe("h-new");
    expect(await hashOf(bob?.id as string)).toBe(bob?.tokenHash);
    expect(await store.read(async (tx) => (await tx.agents.byTokenHash("h-new"))?.id)).toBe(alice?.id);
  });

  it("names many agents in one read: retired ones too, unknown ids left out", async () => {
    const [alice, bob] = await store.write(async (tx) => {
      const added = [
        await tx.agents.insert(newAgent("alice"), "2026-01-01T00:00:00.000Z"),
        await tx.agents.insert(newAgent("bob"), "2026-01-01T00:00:00.000Z"),
      ];
      await tx.agents.retire(added[1]?.id as string, "2026-01-02T00:00:00.000Z");
      await tx.journal.append(event("agent.add"));
      return added;
    });
    const names = await store.read((tx) =>
      tx.agents.names([
        alice?.id as string,
        bob?.id as string,
        "A-999",
        "owner",
        '"],["x',
        alice?.id as string,
      ]),
    );
    expect([...names].sort()).toEqual([
      [alice?.id, "alice"],
      [bob?.id, "bob"],
    ]);
    expect(await store.read((tx) => tx.agents.names([]))).toEqual(new Map());
  });

  it("rolls back the whole transaction when any step fails", async () => {
    await expect(
      store.write(async (tx) => {
        await tx.agents.insert(newAgent("carol"), "2026-01-01T00:00:00.000Z");
        await tx.journal.append(event("agent.add"));
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await store.read((tx) => tx.agents.byName("carol"))).toBeUndefined();
    expect(await store.read((tx) => tx.journal.recent(10))).toEqual([]);
  });

  it("maps a unique-constraint violation to a conflict", async () => {
    await store.write(async (tx) => {
      await tx.agents.insert(newAgent("dup"), "2026-01-01T00:00:00.000Z");
      await tx.journal.append(event("agent.add"));
    });
    const failure = await store
      .write(async (tx) => {
        await tx.agents.insert(newAgent("dup"), "2026-01-01T00:00:00.000Z");
        await tx.journal.append(event("agent.add"));
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CairnError);
    expect((failure as CairnError).errorKind).toBe("conflict");
  });

  it("hands out short ids without gaps after a rollback and never again after a delete", async () => {
    const fact = (text: string) => ({ text, norm: text, topics: [], author: "owner" });
    const add = (text: string) =>
      store.write(async (tx) => {
        const made = await tx.facts.insert(fact(text), "2026-01-01T00:00:00.000Z");
        await tx.journal.append(event("fact.add"));
        return made.id;
      });
    expect(await add("one")).toBe("F-1");
    await expect(
      store.write(async (tx) => {
        await tx.facts.insert(fact("rolled back"), "2026-01-01T00:00:00.000Z");
        await tx.journal.append(event("fact.add"));
        throw new Error("abandon");
      }),
    ).rejects.toThrow("abandon");
    expect(await add("two")).toBe("F-2");
    await store.write(async (tx) => {
      await tx.facts.delete("F-2");
      await tx.journal.append(event("fact.forget"));
    });
    expect(await add("three")).toBe("F-3");
    const ids = (await store.read((tx) => tx.journal.recent(10))).map((e) => e.id);
    expect(ids).toEqual([4, 3, 2, 1]);
  });

  it("keeps text and JSON exactly: NUL characters, key order, accents, 5 MB", async () => {
    const text = `nul\u0000inside \uE000 café ${"x".repeat(5 * 1024 * 1024)}`;
    await store.write(async (tx) => {
      await tx.meta.set("probe", text);
      await tx.journal.append({ ...event("probe"), data: { b: 1, a: [2, { z: 0, y: "\u0000" }] } });
    });
    expect(await store.read((tx) => tx.meta.get("probe"))).toBe(text);
    const [stored] = await store.read((tx) => tx.journal.recent(1));
    expect(JSON.stringify(stored?.data)).toBe('{"b":1,"a":[2,{"z":0,"y":"\\u0000"}]}');
  });

  it("refuses a change inside a read transaction", async () => {
    await expect(
      store.read(async (tx) => {
        await tx.meta.set("k", "v");
      }),
    ).rejects.toThrow(/read|only/i);
  });

  it("recalls by bm25: the rarer matching word ranks first, accents fold, superseded facts leave", async () => {
    await store.write(async (tx) => {
      const at = "2026-01-01T00:00:00.000Z";
      for (let i = 0; i < 20; i++)
        await tx.facts.insert(
          { text: `the board keeps task ${i}`, norm: `n${i}`, topics: [], author: "o" },
          at,
        );
      await tx.facts.insert(
        { text: "the café serves sqlite leases", norm: "cafe", topics: ["store"], author: "o" },
        at,
      );
      const old = await tx.facts.insert(
        { text: "leases expire hourly", norm: "old", topics: [], author: "o" },
        at,
      );
      const fresh = await tx.facts.insert(
        { text: "leases expire daily", norm: "new", topics: [], author: "o" },
        at,
      );
      await tx.facts.supersede(old.id, fresh.id, at);
      await tx.journal.append(event("fact.add"));
    });
    const hits = await store.read((tx) => tx.facts.search({ terms: ["cafe", "board"], limit: 5 }));
    expect(hits[0]?.fact.text).toBe("the café serves sqlite leases");
    const leases = await store.read((tx) => tx.facts.search({ terms: ["leases", "expire"], limit: 5 }));
    expect(leases.map((h) => h.fact.text)).toEqual(["leases expire daily", "the café serves sqlite leases"]);
    const topical = await store.read((tx) =>
      tx.facts.search({ terms: ["leases"], topic: "store", limit: 5 }),
    );
    expect(topical.map((h) => h.fact.text)).toEqual(["the café serves sqlite leases"]);
    for (const hostile of [
      "foo & | bar",
      '"unterminated',
      "a:*",
      "(x",
      "<->",
      "'; drop table facts; --",
      "!",
    ]) {
      await expect(
        store.read((tx) => tx.facts.search({ terms: [hostile], limit: 5 })),
      ).resolves.toBeDefined();
    }
  });

  it("measures the bytes the workspace takes, growing as it is written", async () => {
    const empty = await store.read((tx) => tx.counts.bytes());
    expect(empty).toBeGreaterThan(0);
    await store.write(async (tx) => {
      for (let i = 0; i < 50; i++)
        await tx.journal.append({ ...event("bulk"), data: { pad: "x".repeat(2_000) } });
    });
    expect(await store.read((tx) => tx.counts.bytes())).toBeGreaterThan(empty);
  });

  it("hints at changes: another handle's commit reports the new journal head", async () => {
    const other = create(scratch.dir);
    try {
      await other.write(async (tx) => {
        await tx.journal.append(event("warm"));
      });
      const seen: number[] = [];
      const advanced = new Promise<void>((resolve) => {
        const stop = store.changes.subscribe((head) => {
          seen.push(head);
          if (head >= 2) {
            stop();
            resolve();
          }
        });
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      await other.write(async (tx) => {
        await tx.journal.append(event("poke"));
      });
      await advanced;
      expect(seen.at(-1)).toBe(2);
    } finally {
      await other.close();
    }
  });

  it("a subscription ended while it starts and a new one at once: the new one hears, and ending it leaves no connection", async () => {
    const other = create(scratch.dir);
    try {
      await other.write((tx) => tx.journal.append(event("warm")));
      await store.read((tx) => tx.journal.recent(1));
      const before = sockets();
      const heardByEnded: number[] = [];
      const heard: number[] = [];
      // Ended before PostgreSQL's listening connection is up; the next one subscribes at once.
      store.changes.subscribe((head) => heardByEnded.push(head))();
      const stop = store.changes.subscribe((head) => heard.push(head));
      // One listening connection on PostgreSQL (not two, one of them never ended); none on SQLite.
      const listening = before + (name === "postgres" ? 1 : 0);
      expect(await socketsSettleAt(listening)).toBe(listening);
      await other.write((tx) => tx.journal.append(event("poke")));
      await waitFor(() => heard.includes(2), 5_000, "the write announced");
      stop();
      expect(await socketsSettleAt(before)).toBe(before);
      expect(heardByEnded.filter((head) => head >= 2)).toEqual([]);
    } finally {
      await other.close();
    }
  });
});

describe("SQLite specifics", () => {
  it("keeps the event journal append-only at the database level", async () => {
    await store.write(async (tx) => {
      await tx.journal.append(event("x"));
    });
    const raw = new Database(path);
    try {
      expect(() => raw.prepare("UPDATE events SET action = 'y'").run()).toThrow(/append-only/);
      expect(() => raw.prepare("DELETE FROM events").run()).toThrow(/append-only/);
    } finally {
      raw.close();
    }
  });
  it("runs in WAL mode with foreign keys on", async () => {
    const raw = new Database(path, { readonly: true });
    try {
      expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
    } finally {
      raw.close();
    }
    await expect(
      store.write(async (tx) => {
        await tx.agents.insert({ ...newAgent("orphan"), parentId: "A-999" }, "2026-01-01T00:00:00.000Z");
        await tx.journal.append(event("agent.add"));
      }),
    ).rejects.toThrow(/conflicts|FOREIGN KEY/i);
  });
});

describe("copying a SQLite store", () => {
  it("a copy stopped part way places nothing, and staging a killed copy left goes at the next", async () => {
    await store.write(async (tx) => {
      await tx.journal.append(event("x"));
    });
    const out = join(scratch.dir, "copy.db");
    const dead = spawnSync(process.execPath, ["-e", ""]).pid as number;
    writeFileSync(`${out}.copy-${dead}-0000`, "left by a killed copy");
    const stop = new AbortController();
    const copying = copyStore({ kind: "sqlite", path }, { kind: "sqlite", path: out }, stop.signal);
    stop.abort();
    await expect(copying).rejects.toThrow(/cancelled/);
    expect(readdirSync(scratch.dir).filter((name) => name.startsWith("copy.db"))).toEqual([]);
    await copyStore({ kind: "sqlite", path }, { kind: "sqlite", path: out });
    expect(readdirSync(scratch.dir).filter((name) => name.startsWith("copy.db"))).toEqual(["copy.db"]);
  });
});

describe("opening a database", () => {
  it("refuses a workspace written by a newer cairn and leaves it untouched", async () => {
    await store.close();
    const raw = new Database(path);
    raw.prepare("INSERT INTO schema_migrations (name, applied_at) VALUES ('9999_future', 'x')").run();
    raw.close();
    expect(() => openStore(path)).toThrow(/newer cairn/);
    const check = new Database(path, { readonly: true });
    expect(
      check.prepare("SELECT COUNT(*) AS n FROM schema_migrations WHERE name = '9999_future'").get(),
    ).toEqual({ n: 1 });
    check.close();
    store = openStore(join(scratch.dir, "other.db"), { create: true });
  });

  it("reports a damaged file as an operational error that names it", async () => {
    const damaged = join(scratch.dir, "damaged.db");
    writeFileSync(damaged, "this is not a database, just some text long enough to be read".repeat(100));
    let caught: unknown;
    try {
      openStore(damaged);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(CairnError);
    expect((caught as CairnError).errorKind).toBe("operational");
    expect((caught as CairnError).message).toContain(damaged);
  });

  it("refuses a file that holds no cairn schema unless creating", () => {
    // Empty: what an init killed before its schema was committed leaves, and says so.
    const empty = join(scratch.dir, "empty.db");
    new Database(empty).close();
    expect(() => openStore(empty)).toThrow(/is empty: an init here was stopped/);
    const foreign = join(scratch.dir, "foreign.db");
    const other = new Database(foreign);
    other.exec("CREATE TABLE t (x)");
    other.close();
    expect(() => openStore(foreign)).toThrow(/no cairn schema/);
  });
});
