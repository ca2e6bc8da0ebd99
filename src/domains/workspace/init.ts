import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { conflict } from "../../kernel/outcome.js";
import { openStore } from "../../store/open.js";
import type { Store } from "../../store/store.js";
import { CONFIG_TEMPLATE } from "./config.js";
import type { Workspace } from "./discover.js";

export interface InitResult {
  workspaceId: string;
  store: Store;
}

/** Lay out `.cairn/` with a migrated, empty database and a commented `cairn.toml`. */
export function createWorkspace(workspace: Workspace): Store {
  if (existsSync(workspace.databasePath)) {
    throw conflict(
      `a cairn workspace already exists at ${workspace.stateDir}`,
      "use it; or pick another directory",
    );
  }
  mkdirSync(workspace.stateDir, { recursive: true });
  if (!existsSync(workspace.configPath)) {
    writeFileSync(workspace.configPath, CONFIG_TEMPLATE.replace("%NAME%", basename(workspace.root)));
  }
  // The database is local state; the configuration is meant to be committed.
  const ignore = join(workspace.stateDir, ".gitignore");
  if (!existsSync(ignore)) writeFileSync(ignore, "cairn.db\ncairn.db-*\n");
  return openStore(workspace.databasePath, { create: true });
}

/** A new workspace with its identity and the journal's first event. */
export async function initWorkspace(
  workspace: Workspace,
  actorName: string,
  now: string,
): Promise<InitResult> {
  const store = createWorkspace(workspace);
  const workspaceId = randomUUID();
  await store.write(async (tx) => {
    await tx.meta.set("workspace_id", workspaceId);
    await tx.meta.set("created_at", now);
    await tx.journal.append({
      at: now,
      actor: actorName,
      action: "workspace.init",
      subject: workspace.root,
      data: { kind: workspace.kind },
    });
  });
  return { workspaceId, store };
}
