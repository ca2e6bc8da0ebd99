import { existsSync, linkSync, renameSync, rmdirSync, rmSync, statSync } from "node:fs";
import { crypto } from "../../kernel/builtins.js";
import { conflict, operational } from "../../kernel/outcome.js";
import { CURRENT_SCHEMA } from "../../store/export-schema.js";
import { openStore, type StoreLocation } from "../../store/open.js";
import { storableUrl } from "../../store/postgres/location.js";
import type { Workspace } from "../workspace/discover.js";
import {
  makeStateDir,
  namedStoreUrl,
  refuseExisting,
  removeDeadImports,
  writeWorkspaceConfig,
} from "../workspace/init.js";
import { type ImportSummary, importWorkspace } from "./transfer.js";

// `cairn import`: the workspace an export is restored into, on SQLite or a shared store
// (transfer.ts reads and checks the export itself).

/**
 * The schema an export says it was written at, when an earlier cairn wrote it (one this build's
 * migrations reach); otherwise undefined, and the import's own checks speak to the header.
 */
function olderSchemaOf(jsonl: string): number | undefined {
  // The header is the first line that is not blank, as the import reads it.
  const start = jsonl.search(/\S/);
  const end = start < 0 ? -1 : jsonl.indexOf("\n", start);
  let schema: unknown;
  try {
    schema = (JSON.parse(jsonl.slice(Math.max(start, 0), end < 0 ? undefined : end)) as { schema?: unknown })
      .schema;
  } catch {
    return undefined;
  }
  return typeof schema === "number" && Number.isInteger(schema) && schema >= 1 && schema < CURRENT_SCHEMA
    ? schema
    : undefined;
}

/**
 * Restore the export into a new store at `location`, as the owner. One an earlier cairn wrote is
 * restored into the tables it was written for, then migrated forward by opening the store again,
 * as that workspace would have been in place: a backup outlives upgrades.
 */
async function importAtItsSchema(
  location: StoreLocation,
  jsonl: string,
  now: string,
  options: Parameters<typeof importWorkspace>[4],
): Promise<ImportSummary> {
  const store = openStore(location, { create: true, atSchema: olderSchemaOf(jsonl) });
  let imported: ImportSummary;
  try {
    imported = await importWorkspace(store, { id: "owner" }, jsonl, now, options);
  } finally {
    await store.close();
  }
  // A writer's open applies what is pending; PostgreSQL connects, and so migrates, at first use.
  const forward = openStore(location);
  try {
    await forward.read(async () => undefined);
  } finally {
    await forward.close();
  }
  return imported;
}

/**
 * `cairn import`: a new workspace holding exactly the export, its cairn.toml included. All or
 * nothing, and never half there: the database is built under another name in `.cairn/` and
 * linked into place only once complete, so a process killed mid-import leaves no workspace (the
 * import can simply be run again), no command is served by a workspace still being filled (and
 * then taken away), and an import that lost a race to another import or `cairn init` removes
 * nothing of theirs.
 */
export async function importIntoNewWorkspace(
  workspace: Workspace,
  jsonl: string,
  now: string,
  signal?: AbortSignal,
): Promise<ImportSummary> {
  // `cairn.db-…`: a name the workspace's .gitignore leaves out, and no command takes for a workspace.
  const staging = `${workspace.databasePath}-import-${process.pid}-${crypto().randomBytes(4).toString("hex")}`;
  const removeStaging = () => {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(staging + suffix, { force: true });
  };
  const summary = await inNewStateDir(
    workspace,
    async () => {
      removeDeadImports(workspace);
      const imported = await importAtItsSchema({ kind: "sqlite", path: staging }, jsonl, now, { signal });
      // Closing the last connection folds the write-ahead log into the file; only the file is linked.
      if ((statSync(`${staging}-wal`, { throwIfNoEntry: false })?.size ?? 0) > 0) {
        throw operational(
          `the imported database ${staging} was not written through to its file; nothing was imported`,
        );
      }
      placeDatabase(staging, workspace);
      return imported;
    },
    removeStaging,
  );
  removeStaging();
  writeWorkspaceConfig(workspace, { kind: "sqlite", path: workspace.databasePath }, summary.config);
  return summary;
}

/**
 * `cairn import` into a schema of a shared PostgreSQL store (`--store URL`, or CAIRN_STORE_URL):
 * the rows go in one transaction under the workspace lock, so a schema that already holds a
 * workspace refuses the import, and a failed, stopped or killed import leaves the schema without
 * one (its connection's end rolls the transaction back). Only then is this checkout's
 * cairn.toml written, naming the store (never its password), as `cairn init --store` writes it.
 */
export async function importIntoSharedStore(
  workspace: Workspace,
  location: Extract<StoreLocation, { kind: "postgres" }>,
  jsonl: string,
  now: string,
  signal?: AbortSignal,
): Promise<ImportSummary> {
  const summary = await inNewStateDir(workspace, async () => {
    return importAtItsSchema(location, jsonl, now, { signal, occupied: () => occupied(location) });
  });
  writeWorkspaceConfig(workspace, location, summary.config);
  return summary;
}

/**
 * `build` run with `.cairn/` made for it (a workspace already there is refused). Should it fail,
 * or a stop signal exit the process without unwinding it, `leftovers` go, and so does the folder
 * if this made it and it is still empty (another process may have put something there).
 */
async function inNewStateDir<T>(
  workspace: Workspace,
  build: () => Promise<T>,
  leftovers: () => void = () => {},
): Promise<T> {
  refuseExisting(workspace);
  const madeStateDir = !existsSync(workspace.stateDir);
  makeStateDir(workspace);
  const abandon = () => {
    leftovers();
    if (!madeStateDir) return;
    try {
      rmdirSync(workspace.stateDir);
    } catch {
      // Not empty: it stays.
    }
  };
  process.once("exit", abandon);
  try {
    return await build();
  } catch (error) {
    abandon();
    throw error;
  } finally {
    process.removeListener("exit", abandon);
  }
}

/** The schema already holds a workspace: another board, or this one imported before. */
function occupied(location: Extract<StoreLocation, { kind: "postgres" }>) {
  const named = namedStoreUrl(location);
  return conflict(
    `the schema ${JSON.stringify(location.schema)} on ${storableUrl(location.url)} already holds a workspace; nothing was imported`,
    `import into a schema of its own (?schema=NAME), or join that board as it is: cairn init --store '${named}'`,
  );
}

/**
 * Put the finished database at the workspace's path unless something is there already: a hard
 * link fails rather than replace (a rename would replace). Where the file system has no hard
 * links, a rename after a last look.
 */
function placeDatabase(staging: string, workspace: Workspace): void {
  const taken = () =>
    conflict(
      `a cairn workspace already exists at ${workspace.stateDir} (made while this import ran)`,
      "nothing was imported: use that workspace, or import into another directory",
    );
  try {
    linkSync(staging, workspace.databasePath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw taken();
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw error;
    if (existsSync(workspace.databasePath)) throw taken();
    renameSync(staging, workspace.databasePath);
  }
}
