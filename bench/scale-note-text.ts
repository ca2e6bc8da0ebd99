import type { Level, NoteBody, Severity, Trust } from "../src/store/knowledge.js";

/**
 * The words of the scale board's notes: each names the component and the thing its epic reworks
 * (the words of the task titles, `epic 1400: billing rework`, `… tune the billing cache`), so a note reads
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

/**
 * Terms a brief shows when they occur in its task's text. Three of them name what the bench's
 * task titles work on (a quarter of the tasks, those on an index, match none of them); the rest
 * are a team's vocabulary that occurs in no title, which every brief still reads and tests.
 */
export const GLOSSARY: [term: string, meaning: string][] = [
  ["cache", "the read-through cache in front of the service's store, filled on a miss"],
  ["queue", "the durable work queue between the API and the workers; at-least-once delivery"],
  ["parser", "the streaming parser of uploaded files; it never holds a whole file in memory"],
  ["WAL", "write-ahead log: changes are appended there before they reach the main file"],
  ["p99", "the latency 99 of 100 calls stay under; the figure a budget is set on"],
  ["bm25", "the ranking function of full-text search: term frequency against document length"],
  ["FTS5", "SQLite's full-text search extension"],
  ["TTL", "how long an entry lives before it is dropped or refreshed"],
  ["backpressure", "a consumer slowing its producer down instead of buffering without bound"],
  ["idempotency key", "a client-chosen key that makes a retried request apply once"],
  ["dead-letter queue", "where messages go after their last failed delivery, for a person to look at"],
  ["shard", "one slice of a partitioned data set, with its own writer"],
  ["leader lease", "a time-bound claim to lead; it lapses unless renewed"],
  ["write amplification", "bytes written to disk for each byte the application wrote"],
  ["cold start", "the first request after a deploy or scale-up, before caches are warm"],
  ["hot path", "the code every request runs; a change there is measured first"],
  ["fan-out", "one event delivered to many consumers"],
  ["tombstone", "a marker that a row was deleted, kept until compaction"],
  ["compaction", "merging segments and dropping tombstones to reclaim space"],
  ["checkpoint", "the moment the write-ahead log is folded back into the main file"],
  ["read replica", "a copy that serves reads and lags the primary a little"],
  ["rate limit", "the most requests a key may make per window"],
  ["circuit breaker", "stops calling a failing dependency for a while instead of piling up retries"],
  ["retry budget", "the share of traffic that may be retries; beyond it, retries are dropped"],
  ["SLO", "service-level objective: the target a service is held to, e.g. 99.9% monthly"],
  ["error budget", "what the SLO leaves for failures in a period; spent, it freezes risky deploys"],
  ["canary", "a release served to a small share of traffic first"],
  ["feature flag", "a switch that turns code on per environment or per customer without a deploy"],
  ["blue-green", "two production environments; a release switches traffic from one to the other"],
  ["runbook", "the written steps for an operational task or an incident"],
  ["postmortem", "the blameless write-up after an incident: what happened, why, what changes"],
  ["backfill", "recomputing past data after a fix or a new field"],
  ["watermark", "how far a stream has been processed; later events are late"],
  ["snapshot", "a consistent copy of the data at one moment"],
  ["keyset pagination", "paging by the last key seen instead of an offset"],
  ["N+1 query", "one query per row of a previous query; the classic slow page"],
];
