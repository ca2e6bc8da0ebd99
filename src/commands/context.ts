import { statSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import {
  type Actor,
  profileFor,
  resolveActor,
  startedByCairnRefusal,
  withRoleGrants,
} from "../domains/identity/actor.js";
import type { AskPerson } from "../domains/identity/guard.js";
import { loadConfig, type Profile, type WorkspaceConfig } from "../domains/workspace/config.js";
import { discoverWorkspace, type Workspace } from "../domains/workspace/discover.js";
import { boardKey, storeCredentialsOf, storeLocationOf } from "../domains/workspace/store-location.js";
import { notFound, operational, refuse } from "../kernel/outcome.js";
import { stampOf } from "../kernel/stamp-cache.js";
import { boardsStartedFor, startChildrenFor } from "../kernel/started-for.js";
import { quoteValue } from "../kernel/text.js";
import type { StoreLocation } from "../store/open.js";
import { openStoreLazily } from "../store/open-lazily.js";
import type { Store } from "../store/store.js";

/** What a face needs to lend a call the person at its client (see CallControls.askPerson). */
export type { AskPerson, PersonAnswer } from "../domains/identity/guard.js";

/** A long-running call's progress, as a face can show it (MCP progress notification, a TTY bar). */
export interface ProgressUpdate {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * What a face lends one call beyond its input: a signal that fires when the caller cancels (MCP
 * cancel, Ctrl-C) and a sink for progress. Faces that have neither pass nothing.
 */
export interface CallControls {
  signal?: AbortSignal;
  progress?: (update: ProgressUpdate) => void;
  /** Who reads the answer; a face that serves a model says so (see CommandContext.audience). */
  audience?: Audience;
  /**
   * A look the server takes on its own (the MCP change feed re-reading the journal and the
   * subscribed resources when someone else writes, the skills watcher listing skills when a file
   * changes), or one its client's host takes (MCP resources listed and read, prompts, completions:
   * a host lists and reads again when told others changed something), not a call by the caller:
   * no call-following hook runs, so it renews no lease. An agent gone silent must not keep its
   * claims because others work. Its calls are its tool calls and its CLI commands.
   */
  background?: boolean;
  /** The person at the client, where the face can ask them (MCP elicitation): see CommandContext. */
  askPerson?: AskPerson;
}

/** The controls of a server's own look (see CallControls.background). */
export const BACKGROUND: CallControls = { background: true };

/**
 * A model (an MCP tool call, the `cli` tool included) or a person (the CLI, an MCP prompt a
 * person picked). Items marked not for model invocation are served to people only.
 */
export type Audience = "model" | "person";

/** What a handler can reach: the workspace, its store and config, the bound caller, the clock. */
export interface CommandContext {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly workspace: Workspace;
  readonly store: Store;
  /**
   * Where `store` is: cairn.toml and the environment as they were when it was opened. A server
   * follows later edits of cairn.toml (roles, grants) but keeps its store, so what it reports
   * about its store comes from here, not from the file as it is now.
   */
  readonly storeLocation: StoreLocation;
  readonly config: WorkspaceConfig;
  readonly actor: Actor;
  /** The MCP tool profile this caller is served (launch flag, else role, else worker). */
  readonly profile: Profile;
  /** Fires when the caller cancels this call; long work stops and kills what it started. */
  readonly signal: AbortSignal;
  /** Report progress of long work; a no-op when the caller did not ask for it. */
  progress(update: ProgressUpdate): void;
  /** Who reads this answer: people-only items are refused or left out for a model. */
  readonly audience: Audience;
  /**
   * Ask the person at the client, when the face can (an MCP client that declared elicitation):
   * a destructive call then needs their yes beside the caller's own `confirm`, which a model can
   * always set. Each answer is audited. Absent on the CLI and for clients that cannot ask.
   */
  readonly askPerson?: AskPerson;
  now(): string;
}

/** The per-process part of a context, before a call lends its controls. */
export type SessionContext = Omit<CommandContext, "signal" | "progress" | "audience" | "askPerson">;

/** A handler's context before any workspace exists (`init`, `import`, `capabilities`). */
export interface BareContext {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** The `CAIRN_AGENT` value read once at launch; `undefined` when unset. */
  readonly agentToken: string | undefined;
  now(): string;
  /** The caller's cancel (MCP cancel, Ctrl-C), for the long ones (an import). */
  readonly signal?: AbortSignal;
}

/**
 * One process, one session: the identity is read from the environment once, at launch, and the
 * workspace is opened on first need and kept. Faces create it; commands use it.
 */
export interface SessionOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** `cairn mcp --profile NAME`. */
  profile?: Profile;
  clock?: () => Date;
  /**
   * A viewer's session (`cairn ui`): the store is opened read-only, only `read` commands are
   * dispatched, and no call-following hook runs (looking at the board renews nobody's lease).
   */
  readOnly?: boolean;
}

export class Session {
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly agentToken: string | undefined;
  readonly readOnly: boolean;
  private readonly requestedProfile: Profile | undefined;
  private readonly clock: () => Date;
  private opened?: Promise<SessionContext>;

  constructor(options: SessionOptions) {
    this.cwd = options.cwd;
    this.env = options.env;
    this.agentToken = options.env.CAIRN_AGENT;
    this.requestedProfile = options.profile;
    this.readOnly = options.readOnly === true;
    this.clock = options.clock ?? (() => new Date());
  }

  now = (): string => this.clock().toISOString();

  bare(): BareContext {
    return { cwd: this.cwd, env: this.env, agentToken: this.agentToken, now: this.now };
  }

  /**
   * Open the workspace and bind the caller, once. A failed open is not kept: the next call
   * retries, so a server started on a damaged database recovers once the file is restored.
   */
  context(): Promise<SessionContext> {
    this.opened ??= this.open().catch((error: unknown) => {
      this.opened = undefined;
      throw error;
    });
    return this.opened.then((ctx) => {
      this.requireSameDatabase(ctx.workspace.databasePath);
      return this.withCurrentConfig(ctx);
    });
  }

  /** The caller as bound at launch, before its roles' grants in cairn.toml narrow it. */
  private launchActor?: Actor;
  /** The cairn.toml the current context was built from (its stamp) and that context. */
  private current?: { stamp: string; ctx: SessionContext };

  /**
   * A long-lived server follows cairn.toml as it is now, as each CLI call does: a role the owner
   * made read-only, narrowed or stripped of planning binds its running agents at their next
   * call, not at their next restart. One stat per call; the file is parsed again only when it changed.
   */
  private withCurrentConfig(opened: SessionContext): SessionContext {
    const path = opened.workspace.configPath;
    const stats = statSync(path, { throwIfNoEntry: false });
    const stamp = stats ? stampOf(stats) : "absent";
    if (this.current?.stamp === stamp) return this.current.ctx;
    const config = loadConfig(path);
    const actor = withRoleGrants(this.launchActor ?? opened.actor, config);
    this.current = { stamp, ctx: { ...opened, config, actor } };
    return this.current.ctx;
  }

  /** The database file this session opened: its device and inode. */
  private databaseIdentity?: string;

  /**
   * A long-lived server must notice its database file was removed (`rm -rf .cairn`) or replaced:
   * writing on into the unlinked file would answer ok and lose everything. One stat per call.
   */
  private requireSameDatabase(path: string): void {
    let now: string | undefined;
    try {
      const stat = statSync(path);
      now = `${stat.dev}:${stat.ino}`;
    } catch {
      now = undefined;
    }
    if (this.databaseIdentity === undefined) {
      this.databaseIdentity = now;
      return;
    }
    if (now !== this.databaseIdentity) {
      throw operational(
        `the workspace database ${path} was ${now === undefined ? "removed" : "replaced"} since this process opened it; nothing was done`,
        "restart cairn (a server: restart `cairn mcp`) once the workspace is back, e.g. after `cairn import` of a backup",
      );
    }
  }

  private async open(): Promise<SessionContext> {
    const workspace = discoverWorkspace(this.cwd, this.env);
    if (!workspace && this.env.CAIRN_DIR) {
      const named = resolve(this.cwd, this.env.CAIRN_DIR);
      // `CAIRN_DIR=/project/.cairn` is the likely slip; `cairn init` there would nest a second one.
      const stateFolder =
        basename(named) === ".cairn" && statSync(resolve(named, "cairn.toml"), { throwIfNoEntry: false });
      throw notFound(
        `CAIRN_DIR is ${quoteValue(this.env.CAIRN_DIR)}, but no cairn workspace is there (${resolve(named, ".cairn")} has no database)`,
        stateFolder
          ? `set CAIRN_DIR to ${quoteValue(dirname(named))}: it names the folder that holds .cairn/, not .cairn itself`
          : "fix or unset CAIRN_DIR, or run `cairn init` in that directory",
      );
    }
    if (!workspace) {
      throw notFound(
        `no cairn workspace in ${this.cwd} or any parent, and no home workspace`,
        "run `cairn init` here (or `cairn init --home` for the machine-level workspace)",
      );
    }
    const configStats = statSync(workspace.configPath, { throwIfNoEntry: false });
    const config = loadConfig(workspace.configPath);
    const location = storeLocationOf(workspace, config, this.env);
    const board = boardKey(location);
    const startedByCairn = boardsStartedFor(this.env).includes(board);
    startChildrenFor(board, storeCredentialsOf(location));
    const store = await openStoreLazily(location, { readonly: this.readOnly, requireIdentity: true });
    try {
      this.launchActor = await resolveActor(store, this.agentToken, startedByCairn);
      const actor = withRoleGrants(this.launchActor, config);
      const profile = profileFor(actor, config, this.requestedProfile);
      const ctx = {
        cwd: this.cwd,
        env: this.env,
        workspace,
        store,
        storeLocation: location,
        config,
        actor,
        profile,
        now: this.now,
      };
      // Stamped as it was before it was read: an edit made meanwhile is read at the next call.
      this.current = { stamp: configStats ? stampOf(configStats) : "absent", ctx };
      return ctx;
    } catch (error) {
      await store.close();
      throw error;
    }
  }

  async close(): Promise<void> {
    const context = await this.opened?.catch(() => undefined);
    await context?.store.close();
  }
}

/**
 * A command that creates workspaces must not run under an agent identity, nor from a process
 * cairn started for the board it would create or join (a shared store already holds one).
 */
export function requireOwnerLaunch(ctx: BareContext, what: string, location: StoreLocation): void {
  if (ctx.agentToken !== undefined) {
    throw refuse("identity", `agents cannot ${what}`, "unset CAIRN_AGENT and run it as the workspace owner");
  }
  if (boardsStartedFor(ctx.env).includes(boardKey(location))) throw startedByCairnRefusal();
}
