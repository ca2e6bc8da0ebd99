import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type DemoWorld, git } from "./world.js";

/**
 * Chapter 2: the task board. Two workers race for one task through their own MCP servers; the
 * loser is refused (a normal result that says what to take instead) and takes that. Then a
 * criterion's verify command fails, passes once the work is there, and only then may it finish;
 * an edit after the check needs the check again.
 */
export async function chapterTasks(world: DemoWorld): Promise<void> {
  world.say("\n== 2. The task board: claims that never collide, done that cairn verifies");
  // A git checkout, as most workspaces are: a tick then holds for the tree its check judged.
  git(world.dir, ["init", "-q"]);
  git(world.dir, ["config", "user.name", "demo"]);
  git(world.dir, ["config", "user.email", "demo@cairn.invalid"]);
  writeFileSync(join(world.dir, ".gitignore"), ".cairn/\n");
  const flag = "parser.done";
  world.cli([
    "task",
    "add",
    "Write the parser",
    "--priority",
    "must",
    "--so-that",
    "config files load",
    "--criteria",
    JSON.stringify({
      text: "the parser output exists",
      verify: ["node", "-e", `require("fs").accessSync(${JSON.stringify(flag)})`],
    }),
  ]);
  world.cli(["task", "add", "Write the docs", "--criteria", "a README section"]);
  const ann = await world.agent("ann", "builder");
  const ben = await world.agent("ben", "builder");
  await ann.call("next_task");
  world.say("  both claim T-1 at the same moment:");
  const [first, second] = await Promise.all([
    ann.call("claim_task", { task: "T-1" }),
    ben.call("claim_task", { task: "T-1" }),
  ]);
  const annWon = !("refused" in first);
  const [winner, loser] = annWon ? [ann, ben] : [ben, ann];
  const refusal = ((annWon ? second : first) as { refused: { next: string } }).refused;
  world.say(`  ${winner.name} won; ${loser.name} reads the refusal's next: "${refusal.next}"`);
  await loser.call("claim_task", { task: "T-2" });

  world.say(`  ${winner.name} checks before the work is done: cairn runs the verify command itself`);
  await winner.call("check_task", { task: "T-1", all: true });
  await winner.call("finish_task", { task: "T-1" });
  world.say(`  … the work lands (${flag} is written), and the same check now passes:`);
  writeFileSync(join(world.dir, flag), "ok\n");
  await winner.call("check_task", { task: "T-1", all: true });
  world.say(
    `  one more edit after the check: the tick was earned on another tree, so finish asks for the check again`,
  );
  writeFileSync(join(world.dir, "parser.js"), "export const parse = (text) => text.split('\\n');\n");
  await winner.call("finish_task", { task: "T-1" });
  await winner.call("check_task", { task: "T-1", all: true });
  await winner.call("finish_task", { task: "T-1" });
  world.say(
    `  ${loser.name}'s docs task has a text-only criterion: its tick is ${loser.name}'s word, so the finish is recorded unverified`,
  );
  await loser.call("check_task", { task: "T-2", n: 1 });
  await loser.call("finish_task", { task: "T-2" });
  const status = world.cli(["status"]) as { board: { counts: Record<string, number> } };
  world.say("  board:", JSON.stringify(status.board.counts));
}
