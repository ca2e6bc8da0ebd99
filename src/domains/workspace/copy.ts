import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { onProcessStop } from "../../kernel/child.js";
import { logStopped } from "../../kernel/log.js";
import { conflict, refuse } from "../../kernel/outcome.js";
import { type CopyStage, copyStore } from "../../store/copy.js";
import { isPostgresUrl, type StoreLocation } from "../../store/open.js";
import type { Actor } from "../identity/actor.js";
import type { WorkspaceConfig } from "./config.js";
import type { Workspace } from "./discover.js";
import { describeLocation, storeLocationOf } from "./store-location.js";

export interface CopyResult {
  from: string;
  to: string;
  rows: number;
  tables: number;
}

/**
 * `cairn store copy --to …`: the whole workspace into a new store (a schema on a PostgreSQL
 * server, or a SQLite file), verified equal. The source is never changed; switching over is the
 * owner's explicit step (`[store] url`, or removing it), so no checkout is moved behind its back.
 */
export async function copyWorkspace(
  workspace: Workspace,
  config: WorkspaceConfig,
  env: NodeJS.ProcessEnv,
  actor: Pick<Actor, "isOwner" | "name">,
  cwd: string,
  to: string,
  signal?: AbortSignal,
): Promise<CopyResult> {
  if (!actor.isOwner) {
    throw refuse(
      "ownership",
      `${actor.name} may not copy the workspace: a copy holds everything`,
      "ask the workspace owner",
    );
  }
  const source = storeLocationOf(workspace, config, env);
  const target: StoreLocation = isPostgresUrl(to)
    ? storeLocationOf(workspace, undefined, {}, to)
    : { kind: "sqlite", path: resolve(cwd, to) };
  if (target.kind === "sqlite" && existsSync(target.path)) {
    throw conflict(`${target.path} already exists`, "copy into a path that does not exist yet");
  }
  const where = describeLocation(target);
  let stage: CopyStage | "copying" = "copying";
  // A stop signal exits without unwinding the copy: it says how far it got, as Ctrl-C does.
  const unhook = onProcessStop(async () => logStopped(stoppedAt(stage, where)));
  try {
    const copied = await copyStore(source, target, signal, (reached) => {
      stage = reached;
    });
    return { from: describeLocation(source), to: where, ...copied };
  } finally {
    unhook();
  }
}

/** What a copy stopped by a signal leaves at `to`. */
function stoppedAt(stage: CopyStage | "copying", to: string): string {
  if (stage === "copying")
    return `the copy to ${to} was stopped and nothing was written; run \`cairn store copy\` again`;
  if (stage === "committing")
    return `the copy to ${to} was stopped as it committed: it is there whole (cairn status on that store shows it) or not at all (then run \`cairn store copy\` again)`;
  return `the copy to ${to} was stopped after it was written, before it was checked against its source: compare \`cairn export\` of both`;
}
