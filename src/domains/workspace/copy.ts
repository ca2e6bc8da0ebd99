import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { conflict, refuse } from "../../kernel/outcome.js";
import { copyStore } from "../../store/copy.js";
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
  const copied = await copyStore(source, target, signal);
  return { from: describeLocation(source), to: describeLocation(target), ...copied };
}
