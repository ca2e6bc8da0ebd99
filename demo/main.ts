/**
 * `npm run demo`: a scratch workspace, real agents, real `cairn mcp` servers driven by the SDK
 * client, and a readable transcript of what each agent sees. Each chapter lives in its own file.
 */
import { chapterAgents } from "./agents.js";
import { chapterGoals } from "./goals.js";
import { chapterKnowledge } from "./knowledge.js";
import { chapterSkills } from "./skills.js";
import { chapterSpine } from "./spine.js";
import { chapterTasks } from "./tasks.js";
import { chapterTeam } from "./team.js";
import { type DemoWorld, openWorld } from "./world.js";

const CHAPTERS: ((world: DemoWorld) => Promise<void>)[] = [
  chapterSpine,
  chapterTasks,
  chapterKnowledge,
  chapterGoals,
  chapterAgents,
  chapterSkills,
  chapterTeam,
];

const world = await openWorld();
try {
  for (const chapter of CHAPTERS) await chapter(world);
  world.say("\nDone. The scratch workspace was", world.dir);
} finally {
  await world.close();
}
