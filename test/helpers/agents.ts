import { appendFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { processGone, waitFor } from "./processes.js";
import { cairn } from "./workspace.js";

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

/**
 * A machine of the test's own (CAIRN_HOME in `dir`) whose operator enabled the named project
 * agents to act as their `[cairn] identity`, at the digest `cairn agents digest` prints now (added
 * to what an earlier call enabled there). Returns the variables to run cairn with on that machine.
 */
export function enableIdentities(
  dir: string,
  names: readonly string[],
  env: Record<string, string | undefined> = {},
): { CAIRN_HOME: string } {
  const machine = { CAIRN_HOME: join(dir, "operator-machine") };
  mkdirSync(machine.CAIRN_HOME, { recursive: true });
  const config = join(machine.CAIRN_HOME, "cairn.toml");
  if (!existsSync(config)) writeFileSync(config, "[agents.identities]\n");
  for (const name of names) {
    const digest = cairn(dir, ["agents", "digest", name, "--json"], { env: { ...env, ...machine } });
    if (digest.code !== 0) throw new Error(`agents digest ${name} failed: ${digest.stderr}`);
    appendFileSync(config, `${(digest.json as { enable_line: string }).enable_line}\n`);
  }
  return machine;
}
