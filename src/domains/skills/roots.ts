import { join, resolve } from "node:path";
import { os } from "../../kernel/builtins.js";
import type { Workspace } from "../workspace/discover.js";

/**
 * Where skills and slash commands are looked for, the user's own first. Precedence: the machine's
 * cairn home beats the user's Claude (and Codex) folders, then dotagent's, and all of them beat
 * the project's folders (`.cairn/`, then `.claude/`, then `.cursor/`). A project's files are
 * anyone's to write, an agent's or a cloned repository's, so a project copy of a name must never
 * replace the skill or command the user installed and reviewed: a body served as instructions to
 * follow, which the client's permissions for that tool name then cover (as Claude Code orders
 * them: personal over project). A name found twice is served from the first root; the others
 * are shadowed, and `skill list` / `command list` (and doctor) name them — never silently.
 * Running a skill's script needs the operator's digest-bound enabling anyway.
 */

export type Dialect = "claude" | "codex" | "cursor";

export interface Root {
  /** A short label: where the item came from, as results and warnings show it. */
  origin: string;
  path: string;
  dialect: Dialect;
  /** Commands only: walk sub-folders (names joined with `:`), or the top level only (Codex). */
  recursive: boolean;
  /**
   * A project's own folder (the repository's files): what is read from it must resolve inside
   * this folder. A link a repository ships (`setup.md -> ../../.ssh/id_rsa`) is not followed out.
   */
  within?: string;
}

const home = (env: NodeJS.ProcessEnv) => env.HOME || os().homedir();
export const cairnHome = (env: NodeJS.ProcessEnv) =>
  resolve(env.CAIRN_HOME || join(home(env), ".config", "cairn"));
const dotagentHome = (env: NodeJS.ProcessEnv) =>
  resolve(env.DOTAGENT_HOME || join(home(env), ".config", "dotagent"));

function projectRoots(workspace: Workspace, kind: "skills" | "commands"): Root[] {
  if (workspace.kind !== "project") return [];
  return [
    {
      origin: `.cairn/${kind}`,
      path: join(workspace.stateDir, kind),
      dialect: "claude",
      recursive: true,
      within: workspace.root,
    },
    {
      origin: `.claude/${kind}`,
      path: join(workspace.root, ".claude", kind),
      dialect: "claude",
      recursive: true,
      within: workspace.root,
    },
  ];
}

export function skillRoots(workspace: Workspace, env: NodeJS.ProcessEnv): Root[] {
  const roots: Root[] = [
    {
      origin: "CAIRN_HOME/skills",
      path: join(cairnHome(env), "skills"),
      dialect: "claude",
      recursive: false,
    },
    {
      origin: "~/.claude/skills",
      path: join(home(env), ".claude", "skills"),
      dialect: "claude",
      recursive: false,
    },
    {
      origin: "dotagent skills",
      path: join(dotagentHome(env), "skills"),
      dialect: "claude",
      recursive: false,
    },
    ...projectRoots(workspace, "skills"),
  ];
  return dedupe(roots);
}

export function commandRoots(workspace: Workspace, env: NodeJS.ProcessEnv): Root[] {
  const codexHome = resolve(env.CODEX_HOME || join(home(env), ".codex"));
  const roots: Root[] = [
    {
      origin: "CAIRN_HOME/commands",
      path: join(cairnHome(env), "commands"),
      dialect: "claude",
      recursive: true,
    },
    {
      origin: "~/.claude/commands",
      path: join(home(env), ".claude", "commands"),
      dialect: "claude",
      recursive: true,
    },
    { origin: "~/.codex/prompts", path: join(codexHome, "prompts"), dialect: "codex", recursive: false },
    ...projectRoots(workspace, "commands"),
  ];
  if (workspace.kind === "project") {
    roots.push({
      origin: ".cursor/commands",
      path: join(workspace.root, ".cursor", "commands"),
      dialect: "cursor",
      recursive: true,
      within: workspace.root,
    });
  }
  return dedupe(roots);
}

/** The same folder reached twice (a home workspace is also CAIRN_HOME) is read once, first place wins. */
function dedupe(roots: Root[]): Root[] {
  const seen = new Set<string>();
  return roots.filter((root) => {
    if (seen.has(root.path)) return false;
    seen.add(root.path);
    return true;
  });
}
