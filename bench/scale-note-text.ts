import type { Level, NoteBody, Severity, Trust } from "../src/store/knowledge.js";

/**
 * The words of the scale board's notes: each names the component and the thing its epic reworks
 * (the words of the task titles, `epic 1400: billing rework`, `… tune the cache`), so a note reads
 * as written about its task, in the same shapes the product accepts from `add_note`.
 */
const COMPONENTS = ["billing", "search", "auth", "ingest"];
const THINGS = ["cache", "index", "queue", "parser"];
const TECH = ["Redis", "Postgres", "SQLite", "Kafka", "Memcached", "S3", "ClickHouse"];
const ENVS = ["staging", "production", "canary", "qa"];

export interface NoteText {
  component: string;
  thing: string;
}

const pick = <T>(random: () => number, list: readonly T[]): T =>
  list[Math.floor(random() * list.length)] as T;

/** What a note on this epic (or on the workspace, `null`) is about. */
export function scopeText(epic: number | null, random: () => number): NoteText {
  const at = epic ?? Math.floor(random() * COMPONENTS.length);
  return { component: COMPONENTS[at % 4] as string, thing: THINGS[at % 4] as string };
}

const number = (random: () => number, from: number, span: number) => from + Math.floor(random() * span);

function decision(about: NoteText, r: () => number): NoteBody {
  const { component: c, thing: t } = about;
  const [tech, other] = [pick(r, TECH), pick(r, TECH)];
  const forms: (() => NoteBody)[] = [
    () => ({
      kind: "decision",
      chose: `keep the ${c} ${t} in ${tech} with a ${number(r, 5, 300)}-second TTL`,
      rejected: `a separate ${other} ${t}: one more service to run and page for`,
      because: `${tech} already runs in ${pick(r, ENVS)} and the ${c} p99 budget is ${number(r, 5, 40)} ms`,
    }),
    () => ({
      kind: "decision",
      chose: `rebuild the ${c} ${t} in batches of ${number(r, 1, 50) * 1000} rows`,
      rejected: `one rebuild in a single transaction, which held the ${c} writers for minutes`,
      because: `readers must keep being served while it runs, in ${pick(r, ENVS)} too`,
    }),
    () => ({
      kind: "decision",
      chose: `version the ${c} ${t} format and read both versions for one release`,
      rejected: `a flag day switching every ${c} reader at once`,
      because: `rollbacks of the ${c} service must stay possible (expand, then contract)`,
    }),
    () => ({
      kind: "decision",
      chose: `measure the ${c} ${t} with the bench before and after, in the same run`,
      rejected: `comparing against last week's dashboard figures, which drift with the fleet`,
      because: `the ${c} ${t} changes are small and only a pairwise figure shows them`,
    }),
  ];
  return (pick(r, forms) as () => NoteBody)();
}

function finding(about: NoteText, r: () => number, severity: Severity, trust: Trust): NoteBody {
  const { component: c, thing: t } = about;
  const texts = [
    `the ${c} ${t} misses on every cold start in ${pick(r, ENVS)}; the first ${number(r, 2, 30)} requests take over a second`,
    `${pick(r, TECH)} connections of the ${c} ${t} run out above ${number(r, 2, 20) * 100} requests a second`,
    `the ${c} ${t} is rebuilt twice after a deploy: the hook and the cron both fire`,
    `an entry of the ${c} ${t} outlives its row by up to ${number(r, 2, 58)} minutes after a delete`,
    `the ${c} ${t} tests share a fixture and fail one time in ${number(r, 10, 90)} when run in parallel`,
  ];
  return { kind: "finding", text: pick(r, texts), severity, trust };
}

function metric(about: NoteText, r: () => number): NoteBody {
  const { component: c, thing: t } = about;
  return {
    kind: "metric",
    goal: `the ${c} service stays fast as the data grows`,
    question: `does the ${c} ${t} keep its latency at ${number(r, 2, 9)} times today's rows?`,
    metric: `${c} ${t} p99 in ms on the scale bench, beside the same run's floor`,
  };
}

function ref(about: NoteText, r: () => number): NoteBody {
  const { component: c, thing: t } = about;
  const n = number(r, 1, 400);
  return r() < 0.5
    ? {
        kind: "ref",
        target: `docs/adr/${n}-${c}-${t}.md`,
        summary: `why the ${c} ${t} is shaped the way it is`,
      }
    : {
        kind: "ref",
        target: `https://wiki.example.com/${c}/${t}/runbook-${n}`,
        summary: `the ${c} ${t} runbook: rebuild, drain, roll back`,
      };
}

/** A note body of this kind about this text; findings take their severity and trust. */
export function noteBody(
  kind: NoteBody["kind"],
  about: NoteText,
  random: () => number,
  severity: Severity = "minor",
  trust: Trust = "unverified",
): NoteBody {
  switch (kind) {
    case "decision":
      return decision(about, random);
    case "finding":
      return finding(about, random, severity, trust);
    case "metric":
      return metric(about, random);
    case "ref":
      return ref(about, random);
  }
}

const LEVELS: Level[] = ["high", "medium", "low"];

/** Impact and likelihood, each drawn alone: every rank from 1 to 6 occurs. */
export const riskLevels = (random: () => number): [Level, Level] => [
  pick(random, LEVELS),
  pick(random, LEVELS),
];
