import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type DemoWorld, git } from "./world.js";

const LIB_GOOD = "export const add = (a, b) => a + b;\n";
const LIB_BROKEN = "export const add = (a, b) => a - b;\n";
const LIB_FAST = "export const add = (a, b) => b + a;\n";
const TEST =
  'import { add } from "./lib.mjs";\nif (add(2, 3) !== 5) { console.error("add(2, 3) should be 5"); process.exit(1); }\nconsole.log("1 test passed");\n';

/** Chapter: a goal over a tiny generated repo; cairn measures, the builder's word decides nothing. */
export async function chapterGoals(world: DemoWorld): Promise<void> {
  world.say("\n== 4. Goals and proof gates: cairn, not the builder, decides keep or revert");
  const { dir } = world;
  writeFileSync(
    join(dir, "package.json"),
    '{ "name": "tiny", "type": "module", "scripts": { "test": "node test.mjs" } }\n',
  );
  writeFileSync(join(dir, "lib.mjs"), LIB_GOOD);
  writeFileSync(join(dir, "test.mjs"), TEST);
  // The workspace has been a git checkout since chapter 2; what earlier chapters left is
  // committed too, so the repo starts clean.
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-qm", "tiny repo"]);
  world.say(
    "  a tiny repo: lib.mjs, test.mjs and `npm test`, committed; the planner role serves the planner tools and may plan (freeze runs)",
  );
  appendFileSync(
    join(dir, ".cairn", "cairn.toml"),
    '\n[roles.planner]\nsummary = "Plans goals"\nprofile = "planner"\nplanning = true\n',
  );

  const planner = await world.agent("planner", "planner");
  const created = (await planner.call("create_goal", {
    goal: "keep add() tested and its docs readable",
  })) as {
    goal: { id: string };
  };
  const goal = created.goal.id;
  await planner.call("update_goal", {
    id: goal,
    outcome: "add() is correct; its docs are clear",
    constraints: ["no dependencies"],
  });
  const plan = (await planner.call("plan_milestones", { id: goal })) as {
    milestones: { id: string; task_id: string }[];
  };
  const [core, review] = plan.milestones.map((m) => m.id);
  const coreTask = plan.milestones[0]?.task_id as string;
  world.say("  each milestone is now a task on the board, linked both ways:");
  world.cli(["task", "show", coreTask]);
  await planner.call("select_evaluators", { goal });
  const run = ((await planner.call("freeze_run", { goal })) as { run: { id: string } }).run.id;
  await planner.call("propose_next_task", { id: goal });

  const builder = await world.agent("bea", "builder");
  await builder.call("claim_task", { task: coreTask });
  await builder.call("check_task", { task: coreTask, all: true });
  world.say("  bea ticks the boxes and finishes, but cairn has kept no attempt yet: the proof gate refuses");
  await builder.call("finish_task", { task: coreTask });

  world.say("  attempt 1: the builder breaks add(); cairn runs the frozen evaluators itself");
  const first = (
    (await planner.call("open_attempt", { run, milestone: core })) as { attempt: { id: string } }
  ).attempt.id;
  writeFileSync(join(dir, "lib.mjs"), LIB_BROKEN);
  await planner.call("run_evals", { attempt: first });
  await planner.call("decide_attempt", { attempt: first });
  await planner.call("revert_attempt", { attempt: first, confirm: true });

  world.say("  attempt 2: a change that keeps the test green");
  const second = (
    (await planner.call("open_attempt", { run, milestone: core })) as { attempt: { id: string } }
  ).attempt.id;
  writeFileSync(join(dir, "lib.mjs"), LIB_FAST);
  await planner.call("run_evals", { attempt: second });
  await planner.call("decide_attempt", { attempt: second });
  world.say("  keep committed the attempt's own change: the next attempt opens on a clean base");
  world.say("  now bea's finish passes the gate:");
  await builder.call("finish_task", { task: coreTask });

  world.say(
    "  attempt 3: the docs milestone has only a manual proof; a self-report alone reaches review, never keep",
  );
  await planner.call("propose_next_task", { id: goal });
  const third = (
    (await planner.call("open_attempt", { run, milestone: review })) as { attempt: { id: string } }
  ).attempt.id;
  await planner.call("report_scores", { attempt: third, scores: { looks_good: 1 } });
  await planner.call("report_scores", { attempt: third, scores: { review: 0.9 } });
  await planner.call("decide_attempt", { attempt: third });
  world.say(
    "  the owner, a person, settles the review: accepting is the human judgment the manual proof needs",
  );
  world.cli(["attempt", "accept", third, "--reason", "the docs read well"]);
  await planner.call("propose_next_task", { id: goal });
  world.cli(["run", "status", run]);
}
