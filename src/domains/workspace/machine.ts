import { loadConfig, type WorkspaceConfig } from "./config.js";
import { homeWorkspace } from "./discover.js";

/**
 * The machine's own configuration: `CAIRN_HOME/cairn.toml`, which only the person at this
 * machine writes. A project's `.cairn/cairn.toml` is committed with the repository, so whatever
 * widens what a model may execute (the `[os]` allowlist, skills enabled to run) is read from here
 * and never from a file a cloned repository brings along.
 */
export function machineConfig(env: NodeJS.ProcessEnv): { config: WorkspaceConfig; path: string } {
  const path = homeWorkspace(env).configPath;
  return { config: loadConfig(path), path };
}
