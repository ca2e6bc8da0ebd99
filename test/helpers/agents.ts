import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { processGone, waitFor } from "./processes.js";

/** Write `.cairn/agents/<dir>/agent.toml` in a workspace; returns the manifest's path. */
export function writeAgent(workspace: string, dir: string, toml: string): string {
  const folder = join(workspace, ".cairn", "agents", dir);
  mkdirSync(folder, { recursive: true });
  const path = join(folder, "agent.toml");
  writeFileSync(path, toml);
  return path;
}

/**
 * A manifest running `sh -c SCRIPT` (the agent's own choice of program; cairn never adds a
 * shell). `agent` adds lines to `[agent]`; `rest` appends whole sections.
 */
export function shellAgent(
  name: string,
  script: string,
  options: { agent?: string; rest?: string } = {},
): string {
  return [
    "[agent]",
    `name = ${JSON.stringify(name)}`,
    options.agent ?? "",
    "[run]",
    'command = "sh"',
    `args = ["-c", ${JSON.stringify(script)}]`,
    options.rest ?? "",
    "",
  ].join("\n");
}

/** True while a process runs; a zombie no reaper has collected yet counts as gone. */
export const alive = (pid: number): boolean => !processGone(pid);

/** Poll until `check` holds (for processes outside any event we can await), at most `ms`. */
export const until = (check: () => boolean, ms = 10_000): Promise<void> => waitFor(check, ms);
