import type { Client } from "@modelcontextprotocol/client";
import { DONE_SHARE, PER_EPIC } from "./scale-seed.js";

/**
 * With `--vs`, both builds are first asked the same questions on the same board, and their
 * answers compared byte for byte: a change measured as faster must also answer exactly as the
 * build it replaces. Recall over a spread of words (one, two and three at a time, with and
 * without a topic, at several limits) and briefs of tasks across the board, done and open.
 */
export const RECALL_WORDS = [
  "redis",
  "connections",
  "staging",
  "port",
  "production",
  "cache",
  "queue",
  "billing",
  "search",
  "metrics",
  "rabbitmq",
  "cluster",
  "postgres",
  "timeout",
  "listens",
  "events",
  "preview",
  "auth",
  "2",
  "3500",
];
const TOPICS = ["billing", "preview", "search", "reporting"];

function questions(tasks: number): [tool: string, args: Record<string, unknown>][] {
  const asked: [string, Record<string, unknown>][] = [
    ["recall", { limit: 10 }],
    ["recall", { topic: "billing", limit: 5 }],
  ];
  for (const [i] of RECALL_WORDS.entries()) {
    for (const count of [1, 2, 3]) {
      const query = Array.from(
        { length: count },
        (_, k) => RECALL_WORDS[(i * 7 + k * 13) % RECALL_WORDS.length],
      ).join(" ");
      for (const limit of [1, 10, 20]) asked.push(["recall", { query, limit }]);
      asked.push(["recall", { query, topic: TOPICS[i % TOPICS.length], limit: 10 }]);
    }
  }
  const epics = tasks / PER_EPIC;
  const open = Math.ceil(epics * DONE_SHARE);
  for (const epic of [0, 1, Math.floor(epics / 2), open - 1, open, open + 3, epics - 1])
    for (const offset of [1, 2, 55]) asked.push(["get_context", { task: `T-${epic * PER_EPIC + offset}` }]);
  return asked;
}

/** How many of the questions both builds answered identically, of how many asked. */
export async function sameAnswers(
  now: Client,
  before: Client,
  tasks: number,
): Promise<{ same: number; asked: number; first?: string }> {
  const asked = questions(tasks);
  let same = 0;
  let first: string | undefined;
  for (const [tool, args] of asked) {
    const call = (client: Client) =>
      client
        .callTool({ name: tool, arguments: { schema_version: 1, ...args } })
        .then((r) => JSON.stringify(r));
    const [a, b] = [await call(now), await call(before)];
    if (a === b) same++;
    else first ??= `${tool} ${JSON.stringify(args)}`;
  }
  return { same, asked: asked.length, ...(first ? { first } : {}) };
}
