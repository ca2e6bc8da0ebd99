import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CairnError } from "../../src/kernel/outcome.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { scratchDir } from "../helpers/workspace.js";

/**
 * Every store implementation must pass the contract below; a PostgreSQL store joins this list.
 * Tests that poke at SQLite's own files live in the SQLite-only block further down.
 */
const IMPLEMENTATIONS: { name: string; create: (dir: string) => Store }[] = [
  { name: "sqlite", create: (dir) => openStore(join(dir, "cairn.db"), { create: true }) },
];

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

const event = (action: string) => ({
  at: "2026-01-01T00:00:00.000Z",
  actor: "owner",
  action,
  subject: "s",
  data: {},
});
const newAgent = (name: string) => ({
  name,
  role: "builder",
  grant: "rw" as const,
  parentId: null,
  tokenHash: `h-${name}`,
});

describe.each(IMPLEMENTATIONS)("store contract: $name", ({ create }) => {
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
    const empty = join(scratch.dir, "empty.db");
    new Database(empty).close();
    expect(() => openStore(empty)).toThrow(/no cairn schema/);
  });
});
