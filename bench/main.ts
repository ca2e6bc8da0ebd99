/**
 * `npm run bench`: every benchmark in bench/, each printing its figures beside a baseline
 * measured in the same run. Pass names to run a subset: `npm run bench -- spine`;
 * the scale suite takes sizes: `npm run bench -- scale --tasks=20000 --facts=100000`.
 */
// First, as in cairn's own entry (src/main.ts): what runs in process here (a catalog build, a
// brief, a recall) validates with the zod that cairn runs, without compiled fast paths.
import "../src/kernel/zod-jitless.js";
import { benchAgents } from "./agents.js";
import { benchFeed } from "./feed.js";
import { benchGlobs } from "./globs.js";
import { benchGoals } from "./goals.js";
import { benchKnowledge } from "./knowledge.js";
import { benchPostgres } from "./postgres.js";
import { goalsSummary } from "./report.js";
import { benchScale } from "./scale.js";
import { benchSkills } from "./skills.js";
import { benchSpine } from "./spine.js";
import { benchTasks } from "./tasks.js";
import { benchUi } from "./ui.js";

const SUITES: Record<string, () => Promise<void>> = {
  spine: benchSpine,
  goals: benchGoals,
  knowledge: benchKnowledge,
  tasks: benchTasks,
  scale: benchScale,
  ui: benchUi,
  agents: benchAgents,
  skills: benchSkills,
  pg: benchPostgres,
  feed: benchFeed,
  globs: benchGlobs,
};

// Flags (`--tasks=20000`) belong to the suites that read them, not to the choice of suites.
const wanted = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
// A mistyped suite ran nothing, and the summary after it read as a clean pass.
const unknown = wanted.filter((name) => !Object.hasOwn(SUITES, name));
if (unknown.length > 0) {
  process.stderr.write(
    `bench: no suite ${unknown.map((name) => JSON.stringify(name)).join(", ")}; the suites are ${Object.keys(SUITES).join(", ")}\n`,
  );
  process.exit(2);
}
for (const [name, suite] of Object.entries(SUITES)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  await suite();
}
process.stdout.write(goalsSummary());
