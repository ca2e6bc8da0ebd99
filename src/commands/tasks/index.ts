import type { CommandDomain } from "../domain.js";
import { COORDINATION_COMMANDS } from "./coordination.js";
import { SHORTCUT_COMMANDS } from "./shortcuts.js";
import { TASK_COMMANDS } from "./tasks.js";
import { BOARD_TOOLS } from "./tools.js";

/** The task board: tasks, claims, verified criteria, asks, queues and shortcuts. */
export const tasksDomain: CommandDomain = {
  name: "tasks",
  commands: [...TASK_COMMANDS, ...COORDINATION_COMMANDS, ...SHORTCUT_COMMANDS],
  tools: BOARD_TOOLS,
  groups: {
    task: "The task board: add, claim, check, finish and organise tasks",
    queue: "Named ordered steps with a cursor, advanced once per key",
    shortcut: "Named command templates agents may run through the guard",
  },
};
