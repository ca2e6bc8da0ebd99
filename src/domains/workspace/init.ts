import {
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  readlinkSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { crypto } from "../../kernel/builtins.js";
import { removeLeftoversOfDeadProcesses, replaceFileSync } from "../../kernel/leftovers.js";
import { conflict, operational } from "../../kernel/outcome.js";
import { openRegularFile } from "../../kernel/regular-file.js";
import type { Setting } from "../../kernel/setting.js";
import { isBlankSqliteDatabase, openStore, type StoreLocation } from "../../store/open.js";
import { storableUrl } from "../../store/postgres/location.js";
import type { Store } from "../../store/store.js";
import { CONFIG_TEMPLATE, loadConfig } from "./config.js";
import { declaresSharedStore, type Workspace } from "./discover.js";
import { recordOwnerSetting } from "./owner-setting.js";
import { recordFirstRules, rulesOf } from "./rules-watch.js";

export interface InitResult {
  workspaceId: string;
  store: Store;
  /** The shared store already held this workspace: this checkout joined it. */
  joined: boolean;
}

/** What the `[store]` section says of itself; earlier versions wrote it above the table. */
export const STORE_COMMENT =
  "# The shared store: a schema on a PostgreSQL server. Never put a password here:\n# cairn takes it from PGPASSWORD or ~/.pgpass.\n";

/**
 * The `[store]` section for a shared store: the URL without password or schema, and the schema.
 * Its comment is inside the table, so an import that cuts the table out takes the comment too.
 */
function storeSection(location: StoreLocation): string {
  if (location.kind === "sqlite") return "";
  return `\n[store]\n${STORE_COMMENT}url = ${JSON.stringify(storableUrl(location.url))}\nschema = ${JSON.stringify(location.schema)}\n`;
}

export function refuseExisting(workspace: Workspace): void {
  // A blank database is an init killed before its schema was committed: no workspace, and one
  // every later command refused ("holds no cairn schema") while init said one existed.
  const database = existsSync(workspace.databasePath) && !isBlankSqliteDatabase(workspace.databasePath);
  if (database || declaresSharedStore(workspace.configPath)) {
    throw conflict(
      `a cairn workspace already exists at ${workspace.stateDir}`,
      "use it; or pick another directory",
    );
  }
}

/** The URL that joins this schema's board from any directory: no password, the schema named. */
export function namedStoreUrl(location: { url: string; schema: string }): string {
  const named = new URL(storableUrl(location.url));
  named.searchParams.set("schema", location.schema);
  return named.toString();
}

/**
 * A schema named after the directory that already holds a workspace: most likely another
 * project's of the same name on the team's server, whose board this one would silently share. A
 * checkout joins a shared board where the schema is named (`?schema=`, or a committed cairn.toml).
 */
function unnamedJoin(location: { url: string; schema: string }, createdAt: string | undefined) {
  const named = namedStoreUrl(location);
  return conflict(
    `the schema ${JSON.stringify(location.schema)}, named after this directory, already holds a workspace${createdAt ? ` (created ${createdAt})` : ""}: joining it unasked would put two projects on one board; nothing was done`,
    `to join that board, name its schema: cairn init --store '${named}'; for a board of this project's own, name another: ?schema=NAME`,
  );
}

/**
 * What an import killed outright (kill -9, a crash) left half built in the workspace's folder
 * (`cairn.db-import-PID-…`, as large as the export) goes once its process has.
 */
export function removeDeadImports(workspace: Workspace): void {
  removeLeftoversOfDeadProcesses(workspace.stateDir, `${basename(workspace.databasePath)}-import-`, /^-/);
}

/**
 * Make `.cairn/` and open its migrated store; `initWorkspace` writes the configuration once the
 * workspace's identity is settled, so a failed connection or a refused join leaves nothing behind.
 */
async function openNewWorkspace(
  workspace: Workspace,
  location: StoreLocation,
): Promise<{ store: Store; abandon: () => Promise<void>; yield: () => Promise<void> }> {
  refuseExisting(workspace);
  const madeStateDir = makeStateDir(workspace);
  // `init` is what a command run there says to do next: an import killed there is cleared too.
  removeDeadImports(workspace);
  const store = openStore(location, { create: true });
  const abandon = async () => {
    await store.close();
    if (madeStateDir) rmSync(workspace.stateDir, { recursive: true, force: true });
  };
  // Another init made the workspace meanwhile, maybe in this very folder, whose files the
  // folder now holds or is about to: only an empty folder this init made is taken back.
  const yieldTo = async () => {
    await store.close();
    if (madeStateDir) removeIfEmpty(workspace.stateDir);
  };
  return { store, abandon, yield: yieldTo };
}

function removeIfEmpty(directory: string): void {
  try {
    rmdirSync(directory);
  } catch {
    // Not empty (the other init's files are there) or gone: either way it is not this init's.
  }
}

/**
 * Make `.cairn/`, saying plainly what stands in its way: mkdir's own words for a file there
 * (EEXIST) or a symlink to nothing (ENOENT) name neither.
 */
export function makeStateDir(workspace: Workspace): boolean {
  const { stateDir } = workspace;
  const there = lstatSync(stateDir, { throwIfNoEntry: false });
  if (there?.isSymbolicLink() && !existsSync(stateDir)) {
    throw operational(
      `${stateDir} is a symlink to ${readlinkSync(stateDir)}, which does not exist; nothing was done`,
      "create the folder it points to, or remove the symlink",
    );
  }
  if (there && !statSync(stateDir).isDirectory()) {
    throw operational(
      `${stateDir} exists and is not a directory; nothing was done`,
      "move it aside, or run cairn in another directory",
    );
  }
  if (there) return false;
  // Made by this process alone: of several inits at once in one folder, one makes it, and only
  // that one may take it back when its init fails.
  mkdirSync(dirname(stateDir), { recursive: true });
  try {
    mkdirSync(stateDir);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST" && statSync(stateDir).isDirectory()) return false;
    throw error;
  }
}

/** The commented cairn.toml a new workspace starts with. */
export const configTemplate = (workspace: Workspace) =>
  CONFIG_TEMPLATE.replace("%NAME%", basename(workspace.root));

/**
 * What `.cairn/` holds for this machine only: the database, the audit log (every write's input,
 * hidden evaluators' included), its lock and the lines of calls under way, the daemon's pid and the agents' run logs (their
 * captured output, written for this user alone). The configuration and the catalog folders
 * (agents, skills, commands, evaluators) are meant to be committed.
 */
export const STATE_GITIGNORE = `# Local state of this machine; cairn.toml and the catalog folders are meant to be committed.
cairn.db
cairn.db-*
audit.jsonl
audit-*.jsonl
audit.next
audit.lock
audit-pending/
daemon.pid
logs/
`;

/**
 * cairn.toml for a workspace just made or joined: the given text (an import's), else the one
 * already there (a committed file), else a new one; followed by the section naming a shared
 * store, without which the checkout's later commands would look for a SQLite file. A file already
 * there names no store (`refuseExisting` let it through), so the section is added, not replaced.
 */
export function writeWorkspaceConfig(workspace: Workspace, location: StoreLocation, text?: string): void {
  const { configPath } = workspace;
  const store = storeSection(location);
  if (text !== undefined) {
    // An import's text ends where it lost its old section, blank line included: the new section
    // brings its own, or each export and import would add one more.
    const body = store === "" ? text : `${text.replace(/(\r?\n)+$/, "")}\n`;
    replaceFileSync(configPath, body + store);
  } else if (!existsSync(configPath)) {
    writeFileSync(configPath, configTemplate(workspace) + store);
  } else if (store !== "") {
    appendStoreSection(configPath, store);
  }
  writeGitignore(workspace);
}

/** Through the descriptor of a regular file only: a FIFO there would hold the write forever. */
function appendStoreSection(configPath: string, store: string): void {
  let fd: number;
  try {
    fd = openRegularFile(configPath, constants.O_WRONLY | constants.O_APPEND);
  } catch (error) {
    throw operational(
      `the workspace is on the shared store, but ${configPath} could not take its [store] section (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      `make ${configPath} a regular file and add this to it:${store}`,
    );
  }
  try {
    writeSync(fd, store);
  } finally {
    closeSync(fd);
  }
}

export function writeGitignore(workspace: Workspace): void {
  const ignore = join(workspace.stateDir, ".gitignore");
  if (!existsSync(ignore)) writeFileSync(ignore, STATE_GITIGNORE);
}

/**
 * The made workspace's configuration. An init refused in this folder meanwhile may just have taken
 * back the empty folder it had made: the folder is made again, once, as only that init removes it.
 */
function writeConfigOfMade(workspace: Workspace, location: StoreLocation): void {
  try {
    writeWorkspaceConfig(workspace, location);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT" || existsSync(workspace.stateDir)) throw error;
    makeStateDir(workspace);
    writeWorkspaceConfig(workspace, location);
  }
}

/**
 * The rules a new workspace starts with: those of the cairn.toml already there (a committed file),
 * else the defaults of the one init writes. A file that cannot be read records none here; the
 * first call records them (rules-watch.ts).
 */
function firstRules(workspace: Workspace) {
  try {
    return rulesOf(loadConfig(workspace.configPath));
  } catch {
    return undefined;
  }
}

/**
 * A new workspace with its identity, its creating owner's setting (see owner-setting.ts) and the
 * journal's first event; or the shared one joined, as it is.
 */
export async function initWorkspace(
  workspace: Workspace,
  actorName: string,
  now: string,
  setting: Setting,
  location: StoreLocation = { kind: "sqlite", path: workspace.databasePath },
): Promise<InitResult> {
  const { store, abandon, yield: yieldTo } = await openNewWorkspace(workspace, location);
  let workspaceId: string = crypto().randomUUID();
  let joined = false;
  // Decided under the write lock: two checkouts initialising one shared schema agree on one id,
  // and of two initialising one schema only their directory's name chose, the second is refused.
  // Made by another init meanwhile (both found no workspace, or only the blank database of one
  // still at work): that workspace stays whole, and this init is refused as if it came later.
  let madeByAnother = false;
  try {
    await store.write(async (tx) => {
      const existing = await tx.meta.get("workspace_id");
      if (existing) madeByAnother = true;
      if (existing && location.kind === "sqlite") refuseExisting(workspace);
      if (existing) {
        if (location.kind === "postgres" && location.unnamed)
          throw unnamedJoin(location, await tx.meta.get("created_at"));
        workspaceId = existing;
        joined = true;
        return;
      }
      await tx.meta.set("workspace_id", workspaceId);
      await tx.meta.set("created_at", now);
      await recordOwnerSetting(tx, setting);
      const rules = firstRules(workspace);
      if (rules) await recordFirstRules(tx, rules);
      await tx.journal.append({
        at: now,
        actor: actorName,
        action: "workspace.init",
        subject: workspace.root,
        data: { kind: workspace.kind },
      });
    });
  } catch (error) {
    if (madeByAnother) await yieldTo();
    else await abandon();
    throw error;
  }
  try {
    writeConfigOfMade(workspace, location);
  } catch (error) {
    // The workspace stays (made or joined); its connection must not hold the process open.
    await store.close();
    throw error;
  }
  return { workspaceId, store, joined };
}
