import type { CommandDomain } from "../domain.js";
import { activityCommand } from "./activity.js";
import { boardCommand } from "./board.js";
import { nowCommand } from "./now.js";
import { goalProgress } from "./progress.js";
import { reviewCommand } from "./review.js";
import { pulseCommand, systemCommand } from "./system.js";

/**
 * The dashboard's read views. Each is an ordinary read command (`cairn now --json` prints what
 * the Now page shows), so the terminal and the browser cannot disagree.
 */
export const uiDomain: CommandDomain = {
  name: "ui",
  commands: [
    nowCommand,
    boardCommand,
    activityCommand,
    reviewCommand,
    goalProgress,
    systemCommand,
    pulseCommand,
  ],
  tools: [],
  groups: {},
};

/**
 * Every command `cairn ui` may serve, by name: read commands that neither write files nor dump
 * the workspace (`export` is a read, but it is not for a browser).
 */
export const UI_VIEWS: readonly string[] = [
  "now",
  "board",
  "activity",
  "review",
  "system",
  "pulse",
  "status",
  "task list",
  "task show",
  "task ready",
  "asks",
  "goal list",
  "goal show",
  "goal progress",
  "run list",
  "run status",
  "attempt show",
  "agent list",
  "agents status",
  "whoami",
];
