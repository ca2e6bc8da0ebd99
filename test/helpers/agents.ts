import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

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

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Poll until `check` holds (for processes outside any event we can await), at most `ms`. */
export async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
