import { refuse } from "../../kernel/outcome.js";
import { isGitRepo } from "./git.js";

/** Goals are measured against git: without a repository there is no base and no revert. */
export function notGit(root: string, what: string) {
  return refuse(
    "git",
    `${root} is not a git repository: cairn cannot ${what} without a base to measure against and revert to`,
    "run `git init` in the workspace and commit your work, then try again",
  );
}

export async function requireGit(root: string, what: string): Promise<void> {
  if (!(await isGitRepo(root))) throw notGit(root, what);
}
