import type { Level, NoteBody, Severity, Trust } from "../src/store/knowledge.js";
import type { Store, Tx } from "../src/store/store.js";
import { rng } from "./knowledge-corpus.js";
import { GLOSSARY, noteBody, riskLevels, scopeText } from "./scale-note-text.js";

/** The journal event of one seeding write: how many rows of what it wrote. */
export const seedEvent = (count: number, subject: string, at: string) => ({
  at,
  actor: "owner",
  action: "bench.seed",
  subject,
  data: { count },
});

/**
 * The knowledge of the scale bench's board, as a mature board holds it: tens of thousands of
 * decisions and findings, most of them left on finished epics, a share on the work in flight
 * and a few hundred on the workspace, plus some metrics and refs, a few dozen risks and a
 * glossary. Written through the store's own repositories, in journaled write transactions, from
 * a seeded generator: every seed of the same board holds the same notes. A brief reads its task's
 * own scope, its parents' and the workspace's for decisions, and every sibling's for findings, so
 * this is what makes `get_context` meet real sections (and real query plans) on this board.
 */

/** Where the tasks sit: epics of `perEpic` tasks (the epic first), the first `firstOpen` done. */
export interface BoardShape {
  epics: number;
  firstOpen: number;
  perEpic: number;
}

export const epicId = (shape: BoardShape, epic: number) => `T-${epic * shape.perEpic + 1}`;
/** Task `index` (1 … perEpic - 1) of an epic. */
export const taskId = (shape: BoardShape, epic: number, index: number) =>
  `T-${epic * shape.perEpic + 1 + index}`;

/**
 * The open tasks the bench briefs, in turn: the first three tasks of open epics seven apart.
 * Each is named with its epic and the brief's place in the rotation.
 */
export function briefedTasks(shape: BoardShape, count = 24): { id: string; epic: number; turn: number }[] {
  const open = shape.epics - shape.firstOpen;
  return Array.from({ length: count }, (_, turn) => {
    const epic = shape.firstOpen + ((turn * 7) % open);
    return { id: taskId(shape, epic, 1 + (turn % 3)), epic, turn };
  });
}

/**
 * An open epic of which nothing has been written yet (one in five): no notes or risks on it or
 * on any of its tasks, so some briefs carry only what the workspace knows.
 */
export const quietEpic = (shape: BoardShape, epic: number) =>
  epic >= shape.firstOpen && (epic - shape.firstOpen) % 5 === 4;

/**
 * How many notes of each kind land where on the 200,000-task board (a smaller board, in
 * proportion); the sums are what the report's notes row shows.
 */
const PLAN_TASKS = 200_000;
const PLAN = {
  decision: { workspace: 150, doneEpic: 1_400, doneTask: 13_000, openEpic: 600, openTask: 4_800 },
  finding: { workspace: 80, doneEpic: 350, doneTask: 14_000, openEpic: 300, openTask: 5_200 },
  metric: { workspace: 30, doneEpic: 100, doneTask: 1_300, openEpic: 50, openTask: 500 },
  ref: { workspace: 40, doneEpic: 200, doneTask: 1_200, openEpic: 50, openTask: 500 },
} as const;
type Place = keyof (typeof PLAN)["decision"];
type Kind = keyof typeof PLAN;

/** Agents who wrote most of the notes (a brief names each author, looking the agent up). */
const AGENTS = ["ada", "brook", "cyd", "dara", "eli", "fen", "gus", "hal"];
const NOTES_PER_WRITE = 10_000;

export interface SeededNotes {
  decision: number;
  finding: number;
  metric: number;
  ref: number;
  risks: number;
  glossary: number;
  seconds: number;
}

const weighted = <T>(random: () => number, choices: readonly [T, number][]): T => {
  let left = random();
  for (const [value, weight] of choices) {
    left -= weight;
    if (left < 0) return value;
  }
  return (choices[choices.length - 1] as [T, number])[0];
};

function shuffled<T>(random: () => number, items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}

/** Picks scopes of each place; open notes skip quiet epics and favour an epic's first tasks. */
function scopePicker(shape: BoardShape, random: () => number) {
  const busyOpen = Array.from(
    { length: shape.epics - shape.firstOpen },
    (_, o) => shape.firstOpen + o,
  ).filter((epic) => !quietEpic(shape, epic));
  const doneEpic = () => Math.floor(random() * shape.firstOpen);
  const openEpic = () => busyOpen[Math.floor(random() * busyOpen.length)] as number;
  const anyTask = () => 1 + Math.floor(random() * (shape.perEpic - 1));
  // The first tasks of an open epic are the ones in flight: they gather the notes.
  const frontTask = () => 1 + Math.floor((shape.perEpic - 1) * random() ** 2);
  return (place: Place): { scope: string; epic: number | null } => {
    switch (place) {
      case "workspace":
        return { scope: "workspace", epic: null };
      case "doneEpic": {
        const epic = doneEpic();
        return { scope: `task:${epicId(shape, epic)}`, epic };
      }
      case "doneTask": {
        const epic = doneEpic();
        return { scope: `task:${taskId(shape, epic, anyTask())}`, epic };
      }
      case "openEpic": {
        const epic = openEpic();
        return { scope: `task:${epicId(shape, epic)}`, epic };
      }
      case "openTask": {
        const epic = openEpic();
        return { scope: `task:${taskId(shape, epic, frontTask())}`, epic };
      }
    }
  };
}

interface PlannedNote {
  kind: Kind;
  place: Place;
}

/** Finished work's notes first (older, lower seqs), then the work in flight's. */
function plannedNotes(shape: BoardShape, random: () => number): PlannedNote[] {
  const scale = (shape.epics * shape.perEpic) / PLAN_TASKS;
  const phase = (places: readonly Place[], share: (place: Place) => number) => {
    const notes: PlannedNote[] = [];
    for (const kind of Object.keys(PLAN) as Kind[])
      for (const place of places) {
        const count = Math.round(PLAN[kind][place] * share(place) * scale);
        for (let n = 0; n < count; n++) notes.push({ kind, place });
      }
    return shuffled(random, notes);
  };
  // Most workspace-wide choices were made early, while the finished epics ran; a tenth are new.
  const history = phase(["workspace", "doneEpic", "doneTask"], (p) => (p === "workspace" ? 0.9 : 1));
  const current = phase(["workspace", "openEpic", "openTask"], (p) => (p === "workspace" ? 0.1 : 1));
  return [...history, ...current];
}

function findingTrust(random: () => number, done: boolean): Trust {
  return done
    ? weighted(random, [
        ["confirmed", 0.5],
        ["unverified", 0.35],
        ["refuted", 0.15],
      ])
    : weighted(random, [
        ["unverified", 0.7],
        ["confirmed", 0.22],
        ["refuted", 0.08],
      ]);
}

const SEVERITY_MIX: [Severity, number][] = [
  ["major", 0.15],
  ["moderate", 0.45],
  ["minor", 0.4],
];

/** The bench's agents, so notes carry real authors (a brief looks each one up to label it). */
async function seedAgents(store: Store, at: string): Promise<string[]> {
  return store.write(async (tx) => {
    const ids: string[] = [];
    for (const name of AGENTS) {
      const agent = await tx.agents.insert(
        { name, role: "builder", grant: "rw", parentId: null, tokenHash: `bench-seed-no-token-${name}` },
        at,
      );
      ids.push(agent.id);
    }
    await tx.journal.append(seedEvent(ids.length, "agents", at));
    return ids;
  });
}

/** The notes, risks and glossary of the board: deterministic for a given shape. */
export async function seedNotes(store: Store, shape: BoardShape, at: string): Promise<SeededNotes> {
  const started = performance.now();
  const random = rng(1009);
  const agents = await seedAgents(store, at);
  const author = () => (random() < 0.3 ? "owner" : (agents[Math.floor(random() * agents.length)] as string));
  const scopeOf = scopePicker(shape, random);
  const counts = { decision: 0, finding: 0, metric: 0, ref: 0 };
  const write = async (tx: Tx, scope: string, body: NoteBody) => {
    await tx.notes.insert({ scope, author: author(), body }, at);
    counts[body.kind]++;
  };
  const bodyOf = (kind: Kind, epic: number | null): NoteBody => {
    const text = scopeText(epic, random);
    const done = epic !== null && epic < shape.firstOpen;
    return kind === "finding"
      ? noteBody(kind, text, random, weighted(random, SEVERITY_MIX), findingTrust(random, done))
      : noteBody(kind, text, random);
  };
  const planned = plannedNotes(shape, random);
  for (let start = 0; start < planned.length; start += NOTES_PER_WRITE) {
    await store.write(async (tx) => {
      const batch = planned.slice(start, start + NOTES_PER_WRITE);
      for (const { kind, place } of batch) {
        const { scope, epic } = scopeOf(place);
        await write(tx, scope, bodyOf(kind, epic));
      }
      await tx.journal.append(seedEvent(batch.length, "notes", at));
    });
  }
  // Some briefed tasks get decisions of their own for certain (the random spread gives others
  // some too, and leaves the rest without): one in four of the rotation, quiet epics aside.
  await store.write(async (tx) => {
    let count = 0;
    for (const brief of briefedTasks(shape)) {
      if (brief.turn % 4 !== 1 || quietEpic(shape, brief.epic)) continue;
      const scope = `task:${brief.id}`;
      for (let n = 0; n < 2; n++) await write(tx, scope, bodyOf("decision", brief.epic));
      count += 2;
    }
    await tx.journal.append(seedEvent(count, "notes", at));
  });
  const risks = await seedRisks(store, shape, random, author, at);
  const glossary = await seedGlossary(store, at);
  return { ...counts, risks, glossary, seconds: (performance.now() - started) / 1000 };
}

/**
 * A few dozen risks: low-ranked ones on the workspace (a brief shows only ranks 1 and 2, so these
 * are filtered out), some on finished and open epics, and on a third of the briefed tasks' epics
 * and a few briefed tasks themselves, ranks mixed so the filter keeps some and drops others.
 */
async function seedRisks(
  store: Store,
  shape: BoardShape,
  random: () => number,
  author: () => string,
  at: string,
): Promise<number> {
  const scopeOf = scopePicker(shape, random);
  const wanted: { scope: string; epic: number | null; levels: [Level, Level] }[] = [];
  const lowRanks: [Level, Level][] = [
    ["medium", "medium"],
    ["high", "low"],
    ["low", "high"],
    ["medium", "low"],
    ["low", "medium"],
    ["low", "low"],
  ];
  for (const levels of lowRanks) wanted.push({ scope: "workspace", epic: null, levels });
  for (let n = 0; n < 10; n++) wanted.push({ ...scopeOf("doneEpic"), levels: riskLevels(random) });
  for (let n = 0; n < 20; n++) wanted.push({ ...scopeOf("openEpic"), levels: riskLevels(random) });
  for (const brief of briefedTasks(shape)) {
    if (quietEpic(shape, brief.epic)) continue;
    const levels: [Level, Level] = brief.turn % 2 === 0 ? ["high", "medium"] : ["medium", "low"];
    const { epic } = brief;
    if (brief.turn % 3 === 0) wanted.push({ scope: `task:${epicId(shape, epic)}`, epic, levels });
    if (brief.turn % 6 === 1) wanted.push({ scope: `task:${brief.id}`, epic, levels: ["high", "high"] });
  }
  return store.write(async (tx) => {
    for (const { scope, epic, levels } of wanted) {
      const [impact, likelihood] = levels;
      const text = scopeText(epic, random);
      await tx.risks.insert(
        {
          scope,
          risk: `the ${text.component} ${text.thing} falls behind under peak load`,
          impact,
          likelihood,
          indicators: `${text.component} ${text.thing} p99 above ${20 + Math.floor(random() * 80)} ms for ten minutes`,
          action: `shed ${text.component} batch work first, then page the ${text.component} owner`,
          author: author(),
        },
        at,
      );
    }
    await tx.journal.append(seedEvent(wanted.length, "risks", at));
    return wanted.length;
  });
}

async function seedGlossary(store: Store, at: string): Promise<number> {
  return store.write(async (tx) => {
    for (const [term, meaning] of GLOSSARY)
      await tx.glossary.upsert({ term, meaning, author: "owner", updatedAt: at });
    await tx.journal.append(seedEvent(GLOSSARY.length, "glossary", at));
    return GLOSSARY.length;
  });
}
