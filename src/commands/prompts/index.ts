import type { CommandDomain } from "../domain.js";
import { commandsCatalog } from "./catalog.js";
import { commandGet, commandList, commandPrompt } from "./commands.js";

/** Slash commands users already wrote for their agents, served with each origin's dialect. */
export const promptsDomain: CommandDomain = {
  name: "prompts",
  commands: [commandList, commandGet, commandPrompt],
  tools: [],
  groups: { command: "Slash commands from your Claude Code, Codex and Cursor folders" },
  catalog: commandsCatalog,
};
