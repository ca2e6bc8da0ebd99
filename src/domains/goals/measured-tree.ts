import { createHash } from "node:crypto";
import { gitHead } from "../../kernel/git.js";
import { changedPaths, checkoutTop, hashWorkFile } from "./git.js";

/**
 * The tree an evaluation judges, as one fingerprint: HEAD and the content of every path under
 * `dir` that differs from it (cairn's state excluded) — exactly what a keep would commit. Any
 * edit after an evaluation changes it, so a decision can tell the tree it keeps from the tree
 * that was measured.
 */
export async function treeFingerprint(dir: string): Promise<string> {
  const top = (await checkoutTop(dir)) ?? dir;
  const hash = createHash("sha256").update(`HEAD ${(await gitHead(dir)) ?? "(no commit)"}\n`);
  for (const path of await changedPaths(dir)) hash.update(`${path}\0${hashWorkFile(top, path)}\n`);
  return `sha256:${hash.digest("hex")}`;
}
