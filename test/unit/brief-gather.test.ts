import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OWNER } from "../../src/domains/identity/actor.js";
import { assembleBrief } from "../../src/domains/knowledge/brief/engine.js";
import { briefHash, gatherBriefInputs, recordBrief } from "../../src/domains/knowledge/brief/gather.js";
import type { BriefTask, TaskBriefSource } from "../../src/domains/knowledge/brief/inputs.js";
import { defineTerm } from "../../src/domains/knowledge/glossary.js";
import { remember } from "../../src/domains/knowledge/memory.js";
import { addNote, setFindingTrust } from "../../src/domains/knowledge/notes.js";
import { addRisk } from "../../src/domains/knowledge/risks.js";
import { supersede } from "../../src/domains/knowledge/supersede.js";
import { askQuestion } from "../../src/domains/tasks/asks.js";
import { addTask } from "../../src/domains/tasks/board.js";
import { boardBriefSource } from "../../src/domains/tasks/brief-source.js";
import { addShortcut } from "../../src/domains/tasks/shortcuts.js";
import { WorkspaceConfig } from "../../src/domains/workspace/config.js";
import { openStore } from "../../src/store/open.js";
import type { Store, Tx } from "../../src/store/store.js";
import { scratchDir } from "../helpers/workspace.js";

const TASK: BriefTask = {
  id: "T-7",
  title: "Enable WAL mode for the journal",
  status: "claimed",
  author: "owner",
  soThat: "readers never block the writer",
  context: null,
  acceptance: [],
  dependencies: [],
  outOfScope: [],
  parents: [{ id: "T-1", title: "Durable storage", status: "open", soThat: null, author: "owner" }],
  goal: null,
  recentActivity: [],
};

/** The seam, filled by hand the way the task board will fill it. */
const source: TaskBriefSource = { briefTask: async (_tx, id) => (id === TASK.id ? TASK : undefined) };
const config = WorkspaceConfig.parse({
  roles: { builder: { summary: "implements tasks", instructions: "Run tests.", shortcuts: ["npm test"] } },
});
const builder = { ...OWNER, id: "owner", role: "builder" };
const reviewer = {
  id: "A-2",
  name: "rev",
  role: "reviewer",
  grant: "ro" as const,
  isOwner: false,
  parentId: null,
};

let scratch: { dir: string; cleanup: () => void };
let store: Store;
let clock = 0;
const now = () => new Date(Date.UTC(2026, 10, 30, 0, 0, clock++)).toISOString();

beforeEach(async () => {
  scratch = scratchDir();
  store = openStore(join(scratch.dir, "cairn.db"), { create: true });
  // Task scopes must name tasks on the board: T-1 … T-9 exist (the seam above describes T-7).
  // T-7 and its sibling T-8 are children of T-1, so what T-8 found reaches T-7's brief.
  for (let n = 1; n <= 9; n++)
    await addTask(
      store,
      OWNER,
      { title: `task ${n}`, parent: n === 7 || n === 8 ? "T-1" : undefined },
      now(),
      {},
    );
});
afterEach(async () => {
  await store.close();
  scratch.cleanup();
});

/** A task's brief inputs as the builder gathers them, through `seam`. */
const gatherAsBuilder = (taskId: string, seam: TaskBriefSource = source) =>
  gatherBriefInputs(store, seam, { actor: builder, config, taskId, now: now() });

type Method = (...args: unknown[]) => unknown;

/** The store, each repository method its reads call ("glossary.byTerms") passed through `wrap`. */
function withReadsThrough(store: Store, wrap: (call: string, method: Method) => Method): Store {
  return {
    ...store,
    read: <T>(work: (tx: Tx) => Promise<T>) =>
      store.read((tx) =>
        work(
          new Proxy(tx, {
            get: (target, repo: string) =>
              new Proxy(target[repo as keyof Tx] as object, {
                get: (inner, name: string) => {
                  const value = (inner as Record<string, unknown>)[name];
                  return typeof value === "function"
                    ? wrap(`${repo}.${name}`, (value as Method).bind(inner))
                    : value;
                },
              }),
          }),
        ),
      ),
  } as Store;
}

describe("gathering a brief from the store through the task seam", () => {
  it("collects decisions newest first, ranked findings, top risks, task terms and recalled memory", async () => {
    const decide = (chose: string, scope: string) =>
      addNote(
        store,
        builder,
        { kind: "decision", scope, chose, rejected: "the other way", because: "reasons" },
        now(),
      );
    await decide("old workspace decision", "workspace");
    await decide("parent decision", "T-1");
    await decide("newest task decision", "T-7");
    await decide("unrelated task decision", "T-9");
    const find = (text: string, severity: "major" | "minor", scope: string) =>
      addNote(store, reviewer, { kind: "finding", text, severity, scope }, now());
    await find("minor sibling finding", "minor", "T-8");
    const confirmed = await find("major sibling finding, confirmed", "major", "T-8");
    await find("major workspace finding, newer but unverified", "major", "workspace");
    await find("unrelated finding", "major", "T-9");
    await setFindingTrust(store, builder, confirmed.id, "confirmed", now());
    await addRisk(
      store,
      builder,
      { risk: "top", impact: "high", likelihood: "high", indicators: "i", action: "a" },
      now(),
    );
    await addRisk(
      store,
      builder,
      { risk: "low", impact: "low", likelihood: "medium", indicators: "i", action: "a" },
      now(),
    );
    await defineTerm(store, builder, { term: "WAL", meaning: "write-ahead log" }, now());
    await defineTerm(store, builder, { term: "walk", meaning: "not in this task" }, now());
    await defineTerm(store, builder, { term: "Block the writer", meaning: "a multi-word term" }, now());
    await defineTerm(store, builder, { term: "block the", meaning: "also multi-word, also present" }, now());
    await defineTerm(store, builder, { term: "the writers", meaning: "not a whole-word match" }, now());
    await remember(
      store,
      builder,
      { text: "WAL mode needs a shared-memory file next to the database" },
      now(),
    );
    const stale = await remember(store, builder, { text: "WAL mode is unsafe for the journal" }, now());
    await supersede(store, builder, { id: stale.fact.id, text: "WAL mode is safe on local disks" }, now());

    const inputs = await gatherAsBuilder("T-7");
    expect(inputs.decisions.map((d) => d.chose)).toEqual([
      "newest task decision",
      "parent decision",
      "old workspace decision",
    ]);
    expect(inputs.findings.map((f) => f.text)).toEqual([
      "major sibling finding, confirmed",
      "major workspace finding, newer but unverified",
      "minor sibling finding",
    ]);
    expect(inputs.findings[0]?.author).toBe("A-2");
    expect(inputs.risks.map((r) => [r.risk, r.rank])).toEqual([["top", 1]]);
    expect(inputs.glossary.map((t) => t.term).sort()).toEqual(["Block the writer", "WAL", "block the"]);
    const facts = inputs.facts.map((f) => f.text);
    expect(facts).toContain("WAL mode needs a shared-memory file next to the database");
    expect(facts).toContain("WAL mode is safe on local disks");
    expect(facts).not.toContain("WAL mode is unsafe for the journal");
    expect(inputs.role?.instructions).toBe("Run tests.");
    expect(inputs.shortcuts).toEqual([{ text: "npm test", uses: null }]);

    const brief = assembleBrief(inputs, 4_000);
    expect(brief.kind).toBe("ok");
  });

  it("quotes each item's fields as a preview: one huge item cannot take its section out of the brief", async () => {
    const decide = (chose: string, because: string) =>
      addNote(
        store,
        builder,
        { kind: "decision", scope: "workspace", chose, rejected: "mysql", because },
        now(),
      );
    await decide("use postgres", "we need jsonb");
    // Newest first, so first in its section, and alone far past the default budget.
    const huge = await decide("x".repeat(200_000), "y".repeat(100));
    await addNote(
      store,
      reviewer,
      { kind: "finding", text: "the small finding", severity: "minor", scope: "T-7" },
      now(),
    );
    const loud = await addNote(
      store,
      reviewer,
      { kind: "finding", text: "z".repeat(200_000), severity: "major", scope: "workspace" },
      now(),
    );
    await addRisk(
      store,
      builder,
      { risk: "r", impact: "high", likelihood: "high", indicators: "i".repeat(200_000), action: "a" },
      now(),
    );
    await defineTerm(store, builder, { term: "WAL", meaning: "w".repeat(200_000) }, now());

    const inputs = await gatherAsBuilder("T-7");
    const hugeShown = inputs.decisions.find((d) => d.id === huge.id);
    expect(hugeShown?.chose).toBe(
      `${"x".repeat(1_000)}… [199000 more characters; whole: \`cairn note show ${huge.id}\`]`,
    );
    expect(hugeShown?.because).toBe("y".repeat(100));
    expect(inputs.findings.find((f) => f.id === loud.id)?.text).toMatch(
      /^z{1000}… \[199000 more characters; whole: `cairn note show N-\d+`\]$/,
    );
    expect(inputs.risks[0]?.indicators).toMatch(
      /^i{1000}… \[199000 more characters; whole: `cairn risk list`\]$/,
    );
    expect(inputs.glossary[0]?.meaning).toMatch(
      /^w{1000}… \[199000 more characters; whole: `cairn glossary list`\]$/,
    );

    const brief = assembleBrief(inputs, 4_000);
    if (brief.kind !== "ok") throw new Error(`no brief: ${JSON.stringify(brief)}`);
    expect(brief.text).toContain("chose: use postgres\nrejected: mysql\nbecause: we need jsonb");
    expect(brief.text).toContain("the small finding");
    expect(brief.cuts).toEqual([]);
  });

  it("recalls facts that share a word with the task, not only a lone digit of its title", async () => {
    const numbered: TaskBriefSource = {
      briefTask: async (_tx, id) =>
        id === "T-2" ? { ...TASK, id: "T-2", title: "task 2: document the parser", soThat: null } : undefined,
    };
    for (const text of [
      "The gateway writes to nginx (cluster 2)",
      "Step 2 of the deploy waits for a green build",
      "The parser streams uploaded files and never holds one whole",
    ])
      await remember(store, builder, { text }, now());
    const inputs = await gatherAsBuilder("T-2", numbered);
    expect(inputs.facts.map((f) => f.text)).toEqual([
      "The parser streams uploaded files and never holds one whole",
    ]);
  });

  it("shows a decision once: a restatement in its scope is the same note, one in another scope is named beside it", async () => {
    const decide = (scope: string, chose = "SQLite", because = "zero ops") =>
      addNote(store, builder, { kind: "decision", scope, chose, rejected: "PostgreSQL", because }, now());
    const first = await decide("T-1");
    // A retried call, or the same words with other case and spacing: the note already there.
    const again = await decide("T-1", "sqlite ", "Zero  ops.");
    expect(again.id).toBe(first.id);
    expect(again.restated).toBe(true);
    const other = await decide("T-1", "SQLite", "no server to run");
    expect(other.id).not.toBe(first.id);
    const workspace = await decide("workspace");
    expect(workspace.id).not.toBe(first.id);
    // Twenty restatements cannot push an older, different decision out of the brief.
    for (let i = 0; i < 20; i++) await decide("T-7");
    const inputs = await gatherAsBuilder("T-7");
    const shown = inputs.decisions.map((d) => [d.because, d.scope]);
    expect(shown).toEqual([
      ["zero ops", "task:T-7"],
      ["no server to run", "task:T-1"],
    ]);
    expect(inputs.decisions[0]?.also?.map((a) => a.id)).toEqual([workspace.id, first.id]);
    const brief = assembleBrief(inputs, 4_000);
    if (brief.kind !== "ok") throw new Error("expected a brief");
    expect(brief.text.match(/chose: SQLite\nrejected: PostgreSQL\nbecause: zero ops/g)).toHaveLength(1);
    expect(brief.text).toContain(
      `also recorded as ${workspace.id} (workspace, by owner), ${first.id} (task:T-1, by owner)`,
    );
  });

  it("names the author of every note of a decision: an agent restating the owner's does not take it over", async () => {
    const decision = {
      kind: "decision" as const,
      chose: "SQLite",
      rejected: "PostgreSQL",
      because: "zero ops",
    };
    const owners = await addNote(store, OWNER, { ...decision, scope: "workspace" }, now());
    // The newest note of a decision worded alike is the one shown, so the agent's name leads.
    const bob = { ...reviewer, id: "A-9", name: "bob", grant: "rw" as const };
    const bobs = await addNote(store, bob, { ...decision, scope: "T-7", chose: "SQLITE " }, now());
    const brief = assembleBrief(await gatherAsBuilder("T-7"), 4_000);
    if (brief.kind !== "ok") throw new Error("expected a brief");
    expect(brief.text).toContain(`quote ${bobs.id} decision by A-9`);
    expect(brief.text).toContain(`also recorded as ${owners.id} (workspace, by owner)`);
    // A mark that may change what it says ("sqlite!") is another wording: quoted on its own.
    const bangs = await addNote(store, bob, { ...decision, scope: "T-1", chose: "sqlite!" }, now());
    expect(bangs.restated).toBeUndefined();
    const again = await gatherAsBuilder("T-7");
    expect(again.decisions.map((d) => [d.id, d.author, d.chose])).toEqual([
      [bangs.id, "A-9", "sqlite!"],
      [bobs.id, "A-9", "SQLITE"],
    ]);
    expect(again.decisions[1]?.also?.map((a) => a.id)).toEqual([owners.id]);
  });

  it("shows the owner's words of a decision an agent restated padded past the preview", async () => {
    const decision = {
      kind: "decision" as const,
      chose: "Never store secrets in the journal",
      rejected: "storing tokens in plain text",
      because: "the journal is exported and shared",
    };
    const owners = await addNote(store, OWNER, { ...decision, scope: "workspace" }, now());
    // The same words to the key (spacing aside), newer, in the parent's scope: every brief under
    // T-1 folds the two, and showed this copy's first thousand characters, all spaces.
    const pad = " ".repeat(1_200);
    const mallory = { ...reviewer, id: "A-9", name: "mallory", grant: "rw" as const };
    const padded = await addNote(
      store,
      mallory,
      {
        kind: "decision",
        scope: "T-1",
        chose: `Never${pad}store secrets in the journal`,
        rejected: `storing${pad}tokens in plain text`,
        because: `the${pad}journal is exported and shared`,
      },
      now(),
    );
    expect(padded.id).not.toBe(owners.id);
    const inputs = await gatherAsBuilder("T-7");
    expect(inputs.decisions).toHaveLength(1);
    expect(inputs.decisions[0]?.id).toBe(owners.id);
    expect(inputs.decisions[0]?.also?.map((a) => a.id)).toEqual([padded.id]);
    const brief = assembleBrief(inputs, 4_000);
    if (brief.kind !== "ok") throw new Error("expected a brief");
    expect(brief.text).toContain(
      "chose: Never store secrets in the journal\nrejected: storing tokens in plain text\nbecause: the journal is exported and shared",
    );
    expect(brief.text).toContain(`also recorded as ${padded.id} (task:T-1, by A-9)`);
  });

  it("says when older decisions or lower findings than it shows exist, however large the budget", async () => {
    for (let i = 0; i < 21; i++)
      await addNote(
        store,
        builder,
        { kind: "decision", scope: "workspace", chose: `choice ${i}`, rejected: "other", because: "why" },
        now(),
      );
    for (let i = 0; i < 20; i++)
      await addNote(store, reviewer, { kind: "finding", text: `finding ${i}`, severity: "minor" }, now());
    const twenty = await gatherAsBuilder("T-7");
    expect(twenty.decisions).toHaveLength(20);
    expect(twenty.findings).toHaveLength(20);
    const brief = assembleBrief(twenty, 100_000);
    if (brief.kind !== "ok") throw new Error("expected a brief");
    expect(brief.cuts).toEqual([]);
    expect(brief.text).toContain("[older decisions not shown here. Get: `cairn note list --kind decision`]");
    expect(brief.text).not.toContain("findings not shown here");
    await addNote(store, reviewer, { kind: "finding", text: "one more", severity: "minor" }, now());
    const more = assembleBrief(await gatherAsBuilder("T-7"), 100_000);
    if (more.kind !== "ok") throw new Error("expected a brief");
    expect(more.text).toContain("[further findings not shown here. Get: `cairn note list --kind finding`]");
  });

  it("tells a child what is out of scope for every role of its line, not its own role's alone", async () => {
    const lined = WorkspaceConfig.parse({
      roles: {
        lead: { out_of_scope: ["secrets/**"], child_roles: ["builder"] },
        builder: { summary: "implements tasks", out_of_scope: ["vendor/**"] },
      },
    });
    // A builder minted by a lead: it claims nothing tracing into secrets/, so its brief says so.
    const child = {
      id: "A-3",
      name: "kid",
      role: "builder",
      grant: "rw" as const,
      isOwner: false,
      parentId: "A-1",
      lineage: [
        { id: "A-3", role: "builder" },
        { id: "A-1", role: "lead" },
      ],
    };
    const inputs = await gatherBriefInputs(store, source, {
      actor: child,
      config: lined,
      taskId: "T-7",
      now: now(),
    });
    expect(inputs.role?.outOfScope).toEqual(["vendor/**", "secrets/**"]);
  });

  it("offers only the shortcuts the caller may run: every role of its line allows them, and its grant", async () => {
    const lined = WorkspaceConfig.parse({
      roles: {
        lead: { shortcuts: ["test"], child_roles: ["builder", "reviewer"] },
        builder: {},
        reviewer: { grant: "ro" },
      },
      shortcuts: {
        test: { argv: ["npm", "test"], effect: "read" },
        lint: { argv: ["npm", "run", "lint"], effect: "read" },
        fmt: { argv: ["npm", "run", "fmt"], effect: "write" },
      },
    });
    const shortcutsOf = async (actor: Parameters<typeof gatherBriefInputs>[2]["actor"]) =>
      (
        await gatherBriefInputs(store, boardBriefSource(lined), {
          actor,
          config: lined,
          taskId: "T-7",
          now: now(),
        })
      ).shortcuts.map((s) => s.text.split(" ")[0]);
    const agent = (id: string, role: string, grant: "rw" | "ro", parent?: { id: string; role: string }) => ({
      id,
      name: id,
      role,
      grant,
      isOwner: false,
      parentId: parent?.id ?? null,
      lineage: [{ id, role }, ...(parent ? [parent] : [])],
    });
    expect((await shortcutsOf(agent("A-1", "builder", "rw"))).sort()).toEqual(["fmt", "lint", "test"]);
    // A builder minted by a lead runs what the lead may: test alone.
    expect(await shortcutsOf(agent("A-3", "builder", "rw", { id: "A-2", role: "lead" }))).toEqual(["test"]);
    // A read-only reviewer runs no write shortcut.
    expect((await shortcutsOf(agent("A-4", "reviewer", "ro"))).sort()).toEqual(["lint", "test"]);
  });

  it("ranks risks and picks shortcuts from their heads: no shortcut's command is read, and only the risks shown", async () => {
    // A long question on the task: its activity shows the question's preview, read as its head.
    await askQuestion(store, config, OWNER, "T-7", `why ${"w".repeat(200_000)}`, now(), "human");
    for (let n = 0; n < 14; n++)
      await addRisk(
        store,
        OWNER,
        {
          risk: `risk ${n}`,
          impact: "high",
          likelihood: n % 2 === 0 ? "high" : "medium",
          indicators: "i",
          action: "a",
        },
        now(),
      );
    for (const [name, effect] of [
      ["alpha", "read"],
      ["omega", "write"],
    ] as const)
      await addShortcut(
        store,
        config,
        OWNER,
        { name, argv: ["echo", name], effect, roles: [], summary: "" },
        now(),
      );
    // The whole-row reads a brief used to make, refused: what it shows must come from the light ones.
    const forbidden = new Set([
      "shortcuts.list",
      "shortcuts.byName",
      "shortcuts.page",
      "risks.list",
      "asks.byId",
    ]);
    const guarded = withReadsThrough(store, (call, method) =>
      forbidden.has(call)
        ? () => {
            throw new Error(`a brief read ${call}`);
          }
        : method,
    );
    const inputs = await gatherBriefInputs(guarded, boardBriefSource(config), {
      actor: builder,
      config,
      taskId: "T-7",
      now: now(),
    });
    expect(inputs.shortcuts.map((s) => s.text.split(" ")[0])).toEqual(["alpha", "omega"]);
    expect(inputs.task.recentActivity.find((entry) => entry.action === "ask")?.text).toMatch(
      /^Q-1 to human: why w{496}… \[199504 more characters; whole: `cairn asks --id Q-1`\]$/,
    );
    // The ten oldest of the worst rank first, then the next rank's oldest: none added later pushes them out.
    expect(inputs.risks.map((r) => r.risk)).toEqual([
      "risk 0",
      "risk 2",
      "risk 4",
      "risk 6",
      "risk 8",
      "risk 10",
      "risk 12",
      "risk 1",
      "risk 3",
      "risk 5",
    ]);
  });

  it("reads the meanings of the glossary terms its task uses alone, not those of every non-ASCII term", async () => {
    // Every term past ASCII is offered to every brief (the stores fold ASCII case alone), and any
    // writer gives a meaning of 256 KiB: their meanings are read only for the terms the task uses.
    await defineTerm(store, builder, { term: "journal", meaning: "the event log" }, now());
    for (const term of ["Größe", "naïve", "Übergabe"])
      await defineTerm(store, builder, { term, meaning: "x".repeat(200_000) }, now());
    const asked: string[][] = [];
    const spied = withReadsThrough(store, (call, method) => {
      if (call === "glossary.list" || call === "glossary.page")
        return () => {
          throw new Error(`a brief read ${call}`);
        };
      if (call !== "glossary.byTerms") return method;
      return (terms) => {
        asked.push([...(terms as string[])]);
        return method(terms);
      };
    });
    const inputs = await gatherBriefInputs(spied, source, {
      actor: builder,
      config,
      taskId: "T-7",
      now: now(),
    });
    expect(inputs.glossary.map((entry) => [entry.term, entry.meaning])).toEqual([
      ["journal", "the event log"],
    ]);
    expect(asked).toEqual([["journal"]]);
  });

  it("refuses an unknown task with not found", async () => {
    await expect(gatherAsBuilder("T-404")).rejects.toMatchObject({ errorKind: "not_found" });
  });

  it("records a brief frozen with the hash of its exact text", async () => {
    const text = "# Brief for task T-7\nhello";
    const recorded = await recordBrief(store, builder, { taskId: "T-7", budget: 4000, text }, now());
    expect(recorded.hash).toBe(briefHash(text));
    const stored = await store.read((tx) => tx.briefs.byId(recorded.id));
    expect(stored?.text).toBe(text);
    expect(briefHash(stored?.text ?? "")).toBe(recorded.hash);
  });
});
