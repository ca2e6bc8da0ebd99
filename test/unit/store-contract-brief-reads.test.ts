import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rng } from "../../bench/knowledge-corpus.js";
import type { NoteKind, NoteRecord, RiskRecord, Severity, Trust } from "../../src/store/knowledge.js";
import { FINDINGS_OF_SCOPE } from "../../src/store/sqlite/note-findings.js";
import { NEWEST_OF_PAIR } from "../../src/store/sqlite/notes.js";
import type { Store } from "../../src/store/store.js";
import { contractStores } from "../helpers/contract-stores.js";
import { newTask } from "../helpers/new-task.js";
import { scratchDir } from "../helpers/workspace.js";

/**
 * The store contract for what a brief reads of its scopes: findings in severity, trust, newest
 * order over a few scopes and a task's children, the newest notes of a few scopes and kinds (its
 * decisions), and risks of a few scopes, held against plain
 * definitions over a board of a few hundred notes placed and ranked at random, on both stores.
 */
const IMPLEMENTATIONS = contractStores("briefreads");
const AT = "2026-01-01T00:00:00.000Z";
const journal = { at: AT, actor: "owner", action: "test.write", subject: "s", data: {} };
const SEVERITIES: Severity[] = ["major", "moderate", "minor"];
const TRUSTS: Trust[] = ["confirmed", "unverified", "refuted"];
const LEVELS = ["high", "medium", "low"] as const;

/** The bench's seeded generator: the same board on every run and on both stores. */
function generator(seed: number) {
  const next = rng(seed);
  return { pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T, next };
}

interface Board {
  epic: string;
  task: string;
  /** The epic's children's scopes (the task's among them; the grandchild's not). */
  childScopes: string[];
  /** Every finding in insertion order, with the trust it ends with. */
  findings: { id: string; scope: string; severity: Severity; trust: Trust }[];
  /** Every note of any kind, in insertion order (newest last). */
  notes: { id: string; scope: string; kind: NoteKind }[];
  risks: { id: string; scope: string }[];
}

async function seedBoard(store: Store): Promise<Board> {
  const random = generator(42);
  return store.write(async (tx) => {
    const epic = await tx.tasks.insert(newTask("the epic", { parentId: null }), AT);
    const children = [];
    for (let n = 0; n < 30; n++)
      children.push(await tx.tasks.insert(newTask(`child ${n}`, { parentId: epic.id }), AT));
    const grandchild = await tx.tasks.insert(
      newTask("a grandchild", { parentId: children[3]?.id ?? null }),
      AT,
    );
    const task = children[0]?.id ?? "";
    const scopes = [
      "workspace",
      `task:${epic.id}`,
      `task:${task}`,
      `task:${grandchild.id}`,
      ...children.map((child) => `task:${child.id}`),
    ];
    // Most findings land on the workspace and the task, where a brief's pages are long.
    const scopeOf = () => (random.next() < 0.5 ? random.pick(scopes.slice(0, 3)) : random.pick(scopes));
    const findings: Board["findings"] = [];
    const notes: Board["notes"] = [];
    for (let n = 0; n < 400; n++) {
      const scope = scopeOf();
      const severity = random.pick(SEVERITIES);
      const trust = random.pick(TRUSTS);
      const note = await tx.notes.insert(
        { scope, author: "owner", body: { kind: "finding", text: `finding ${n}`, severity, trust } },
        AT,
      );
      findings.push({ id: note.id, scope, severity, trust });
      notes.push({ id: note.id, scope, kind: "finding" });
      // Other kinds in the same scopes must never show among findings; decisions land more
      // often on the workspace, whose page a brief reads first.
      if (n % 4 === 0) {
        const where = n % 8 === 0 ? "workspace" : scopeOf();
        const decision = await tx.notes.insert(
          {
            scope: where,
            author: "owner",
            body: { kind: "decision", chose: `c${n}`, rejected: "r", because: "b" },
          },
          AT,
        );
        notes.push({ id: decision.id, scope: where, kind: "decision" });
      }
      if (n % 9 === 0) {
        const ref = await tx.notes.insert(
          { scope, author: "owner", body: { kind: "ref", target: "docs/x.md", summary: `r${n}` } },
          AT,
        );
        notes.push({ id: ref.id, scope, kind: "ref" });
      }
    }
    // Trust changes after writing move a finding in the order.
    for (const finding of findings.filter((_, n) => n % 7 === 0)) {
      finding.trust = random.pick(TRUSTS);
      await tx.notes.setTrust(finding.id, finding.trust, AT, "A-9");
    }
    const risks: Board["risks"] = [];
    for (let n = 0; n < 60; n++) {
      const risk = await tx.risks.insert(
        {
          scope: scopeOf(),
          risk: `risk ${n}`,
          impact: random.pick(LEVELS),
          likelihood: random.pick(LEVELS),
          indicators: "i",
          action: "a",
          author: "owner",
        },
        AT,
      );
      risks.push({ id: risk.id, scope: risk.scope });
    }
    await tx.journal.append(journal);
    return {
      epic: epic.id,
      task,
      childScopes: children.map((child) => `task:${child.id}`),
      findings,
      notes,
      risks,
    };
  });
}

const rankOf = <T>(list: readonly T[], value: T) => list.indexOf(value);

/** The definition: every finding of the scopes or of the parent's children, in order. */
function expectedFindings(board: Board, scopes: readonly string[], limit: number, childrenOf?: string) {
  const children = new Set(childrenOf === board.epic ? board.childScopes : []);
  return board.findings
    .map((finding, seq) => ({ ...finding, seq }))
    .filter((f) => scopes.includes(f.scope) || children.has(f.scope))
    .sort(
      (a, b) =>
        rankOf(SEVERITIES, a.severity) - rankOf(SEVERITIES, b.severity) ||
        rankOf(TRUSTS, a.trust) - rankOf(TRUSTS, b.trust) ||
        b.seq - a.seq,
    )
    .slice(0, limit)
    .map((f) => f.id);
}

describe.each(IMPLEMENTATIONS)("brief reads store contract: $name", ({ create }) => {
  let scratch: { dir: string; cleanup: () => void };
  let store: Store;
  let board: Board;
  beforeAll(async () => {
    scratch = scratchDir();
    store = create(scratch.dir);
    board = await seedBoard(store);
  });
  afterAll(async () => {
    await store.close();
    scratch.cleanup();
  });

  it("pages findings of a few scopes and a task's children in severity, trust, newest order", async () => {
    const own = [`task:${board.task}`, `task:${board.epic}`, "workspace"];
    const shapes: [string[], number, string | undefined][] = [
      [own, 20, board.epic],
      [own, 7, undefined],
      [own, 1, board.epic],
      [[], 15, board.epic],
      [["workspace", "workspace", `task:${board.task}`], 12, undefined],
      [own, 1_000, board.epic],
      [["task:T-999"], 5, "T-999"],
    ];
    const ids = (notes: NoteRecord[]) => notes.map((note) => note.id);
    for (const [scopes, limit, childrenOf] of shapes) {
      const found = await store.read((tx) => tx.notes.findings(scopes, limit, childrenOf));
      expect(ids(found), JSON.stringify({ scopes, limit, childrenOf })).toEqual(
        expectedFindings(board, scopes, limit, childrenOf),
      );
      expect(found.every((note) => note.body.kind === "finding")).toBe(true);
    }
    // Trust as last set is what the record says.
    const all = await store.read((tx) => tx.notes.findings(own, 1_000, board.epic));
    const trustOf = new Map(board.findings.map((f) => [f.id, f.trust]));
    expect(all.map((note) => note.body.kind === "finding" && note.body.trust)).toEqual(
      all.map((note) => trustOf.get(note.id)),
    );
  });

  it("lists the newest notes of a few scopes and kinds, as one newest-first list", async () => {
    const own = [`task:${board.task}`, `task:${board.epic}`, "workspace"];
    const shapes: [string[], NoteKind[], number][] = [
      [own, ["decision"], 20],
      [own, ["decision"], 1],
      [own, ["decision", "ref"], 15],
      [own, ["decision", "decision", "finding"], 30],
      [["workspace", "workspace", `task:${board.task}`], ["decision"], 12],
      [own, ["decision"], 1_000],
      [["task:T-999"], ["decision"], 5],
      [own, ["decision"], 0],
      // More pairs than are paged one by one: the single statement answers the same.
      [[...board.childScopes, ...own], ["decision", "finding"], 25],
    ];
    for (const [scopes, kinds, limit] of shapes) {
      const listed = await store.read((tx) => tx.notes.list({ scopes, kinds, limit }));
      const expected = board.notes
        .filter((note) => scopes.includes(note.scope) && kinds.includes(note.kind))
        .reverse()
        .slice(0, limit)
        .map((note) => note.id);
      expect(
        listed.map((note) => note.id),
        JSON.stringify({ scopes, kinds, limit }),
      ).toEqual(expected);
    }
    expect(
      (await store.read((tx) => tx.notes.list({ scopes: own, kinds: ["decision"], limit: 20 }))).length,
    ).toBe(20);
  });

  it("lists the risks of a few scopes, oldest first, and every risk without scopes", async () => {
    const scopes = ["workspace", `task:${board.epic}`, "workspace", "task:T-999"];
    const ids = (risks: RiskRecord[]) => risks.map((risk) => risk.id);
    const seen = await store.read(async (tx) => ({
      some: await tx.risks.list(scopes),
      none: await tx.risks.list([]),
      all: await tx.risks.list(),
    }));
    expect(ids(seen.some)).toEqual(board.risks.filter((r) => scopes.includes(r.scope)).map((r) => r.id));
    expect(seen.some.length).toBeGreaterThan(5);
    expect(seen.none).toEqual([]);
    expect(ids(seen.all)).toEqual(board.risks.map((r) => r.id));
  });
});

describe.each(IMPLEMENTATIONS)("brief glossary store contract: $name", ({ create }) => {
  const TERMS = [
    "WAL",
    "Write-Ahead Log",
    "c++",
    "100%",
    "queue",
    "Ärger",
    "naïve plan",
    "snake_case",
    "Kelvin",
  ];
  let scratch: { dir: string; cleanup: () => void };
  let store: Store;
  beforeAll(async () => {
    scratch = scratchDir();
    store = create(scratch.dir);
    await store.write(async (tx) => {
      for (const term of TERMS)
        await tx.glossary.upsert({ term, meaning: `${term} means`, author: "owner", updatedAt: AT });
      await tx.journal.append(journal);
    });
  });
  afterAll(async () => {
    await store.close();
    scratch.cleanup();
  });

  it("marks a note superseded once, and every read of it carries the mark", async () => {
    const scope = "task:T-777";
    const [old, later] = await store.write(async (tx) => {
      const body = (chose: string) => ({ kind: "decision" as const, chose, rejected: "r", because: "b" });
      const made = [
        await tx.notes.insert({ scope, author: "owner", body: body("old") }, AT),
        await tx.notes.insert({ scope, author: "owner", body: body("later") }, AT),
      ];
      await tx.journal.append(journal);
      return made;
    });
    const mark = { by: later?.id ?? "", at: "2026-01-02T00:00:00.000Z" };
    const supersede = (by: string) =>
      store.write(async (tx) => {
        const done = await tx.notes.supersede(old?.id ?? "", by, mark.at);
        await tx.journal.append(journal);
        return done;
      });
    expect(await supersede(mark.by)).toBe(true);
    expect(await supersede("N-1")).toBe(false);
    const read = await store.read(async (tx) => ({
      one: await tx.notes.byId(old?.id ?? ""),
      listed: await tx.notes.list({ scopes: [scope], kinds: ["decision"], limit: 5 }),
      everywhere: await tx.notes.list({ limit: 1_000 }),
    }));
    expect(read.one?.superseded).toEqual(mark);
    expect(read.listed.map((note) => [note.id, note.superseded])).toEqual([
      [later?.id, undefined],
      [old?.id, mark],
    ]);
    expect(read.everywhere.find((note) => note.id === old?.id)?.superseded).toEqual(mark);
  });

  it("offers every term that may occur in a text, in list order, and leaves out ASCII terms that do not", async () => {
    const texts = [
      "Enable the wal and the write-ahead log; tune C++ at 100%",
      "ärger mit dem NAÏVE PLAN",
      "a queue of snake_case names, 5 kelvin",
      "nothing to see here",
      "",
    ];
    for (const text of texts) {
      const lower = text.toLowerCase();
      const { all, offered } = await store.read(async (tx) => ({
        all: await tx.glossary.list(),
        offered: await tx.glossary.byTerms(await tx.glossary.termsMayOccurIn(lower)),
      }));
      const ascii = (term: string) => /^\p{ASCII}*$/u.test(term);
      const expected = all.filter((entry) => !ascii(entry.term) || lower.includes(entry.term.toLowerCase()));
      expect(
        offered.map((entry) => entry.term),
        text,
      ).toEqual(expected.map((entry) => entry.term));
    }
  });
});

describe("brief reads on SQLite", () => {
  /** The plan SQLite makes for a statement in a new workspace, one line per step. */
  async function planOf(sql: string, ...params: unknown[]): Promise<string[]> {
    const scratch = scratchDir();
    const [sqlite] = IMPLEMENTATIONS;
    await sqlite?.create(scratch.dir).close();
    const db = new Database(`${scratch.dir}/cairn.db`, { readonly: true });
    try {
      return db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...params)
        .map((row) => (row as { detail: string }).detail);
    } finally {
      db.close();
      scratch.cleanup();
    }
  }

  it("reads one scope's findings as a walk of their index, with no sort", async () => {
    expect(await planOf(FINDINGS_OF_SCOPE, "workspace", 20)).toEqual([
      "SEARCH notes USING INDEX notes_finding_rank (scope=?)",
    ]);
  });

  it("reads one scope's newest notes of a kind as a walk of their index, with no sort", async () => {
    expect(await planOf(NEWEST_OF_PAIR, "workspace", "decision", 20)).toEqual([
      "SEARCH notes USING INDEX notes_scope_kind (scope=? AND kind=?)",
    ]);
  });
});
