import { refuse } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
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

/**
 * The first five of a list of paths or commits, each quoted and cut, the rest counted: a file's
 * name and a commit's subject are whatever whoever made them wrote, and a refusal is read as
 * cairn's own words.
 */
export function quotedFew(items: readonly string[]): string {
  const shown = items.slice(0, 5).map((item) => quoteValue(item, 120));
  return `${shown.join(", ")}${items.length > 5 ? ` and ${items.length - 5} more` : ""}`;
}
