import { lstatSync, readlinkSync, realpathSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { z } from "zod";
import { auditWorkspaceMade } from "../../domains/audit/record.js";
import { forgetWitness } from "../../domains/audit/witness.js";
import { readsHoldouts } from "../../domains/goals/authority.js";
import {
  homeWorkspace,
  initWarnings,
  projectWorkspace,
  type Workspace,
} from "../../domains/workspace/discover.js";
import { describeLocation, storeLocationOf } from "../../domains/workspace/store-location.js";
import { fsPromises } from "../../kernel/builtins.js";
import { removeLeftoversOfDeadProcesses } from "../../kernel/leftovers.js";
import { operational, refuse } from "../../kernel/outcome.js";
import { requireNotProtocolStream } from "../../kernel/protocol-streams.js";
import { settingOf } from "../../kernel/setting.js";
import { quoteValue } from "../../kernel/text.js";
import { type BareContext, requireOwnerLaunch } from "../context.js";
import { defineBareCommand, defineCommand } from "../define.js";
import { verbatim } from "../field-text.js";

/** `--home` targets the machine-level workspace; otherwise CAIRN_DIR, else the working directory. */
function targetWorkspace(ctx: BareContext, home: boolean | undefined): Workspace {
  if (home) return homeWorkspace(ctx.env);
  return projectWorkspace(resolve(ctx.cwd, ctx.env.CAIRN_DIR ?? "."));
}

/**
 * The real path of `path`, following symlinks as far as the path exists, and through a symlink
 * whose target does not exist yet: writing to it creates that target.
 */
function realish(path: string, depth = 0): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    if (parent === path) return path;
    const here = join(realish(parent, depth), basename(path));
    const link = depth < 40 && lstatSync(here, { throwIfNoEntry: false })?.isSymbolicLink();
    return link ? realish(resolve(dirname(here), readlinkSync(here)), depth + 1) : here;
  }
}

/** An export written into `.cairn/` could overwrite the database it is a backup of. */
function requireOutsideState(path: string, stateDir: string): void {
  const target = realish(path);
  const state = realish(stateDir);
  if (target === state || target.startsWith(`${state}${sep}`)) {
    throw refuse(
      "workspace",
      `${quoteValue(path)} is inside the workspace state directory ${stateDir}; writing there could destroy the workspace`,
      "export to a path outside .cairn/ (e.g. --out backup.jsonl)",
    );
  }
}

/**
 * Write a file by replacing it: the text goes to a new file beside it, renamed over it once
 * complete. Writing into the file in place would write into whatever else shares its inode (a
 * hard link to the workspace database, laid there in advance, took the export over the
 * database), and a failure part way (a full disk) would leave the previous backup cut short.
 * What is not a regular file (a terminal, a pipe, /dev/stdout) is written as it is.
 */
async function writeReplacing(path: string, text: string): Promise<void> {
  const fs = fsPromises();
  const existing = await fs.stat(path).catch(() => undefined);
  if (existing && !existing.isFile()) {
    await fs.writeFile(path, text);
    return;
  }
  const target = realish(path);
  // What an export killed outright (kill -9) left beside its target goes once its pid runs no more.
  removeLeftoversOfDeadProcesses(dirname(target), `.${basename(target)}.`, /^\.tmp$/);
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
  // A stop signal exits without unwinding this function: the part written goes at exit too.
  const abandon = () => rmSync(temporary, { force: true });
  process.once("exit", abandon);
  try {
    // A new export is its owner's alone: it holds every note, the journal and agents' token hashes.
    await fs.writeFile(temporary, text, { flag: "wx", mode: existing ? existing.mode & 0o777 : 0o600 });
    await fs.rename(temporary, target);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw operational(`cannot write ${path}: the folder ${dirname(target)} does not exist`);
    }
    throw error;
  } finally {
    process.removeListener("exit", abandon);
  }
}

/** Where a workspace is, as outputs name it (a builder: see `Lazy` in define.ts). */
export const workspaceRef = () =>
  z.object({
    root: z.string(),
    state_dir: z.string(),
    kind: z.enum(["project", "home"]),
  });

export const init = defineBareCommand({
  name: "init",
  summary: "Create a workspace (.cairn/ with its database and cairn.toml) here, or the home workspace",
  effect: "write",
  input: () =>
    z.object({
      home: z.boolean().optional().describe("create the machine-level workspace in CAIRN_HOME"),
      store: z
        .string()
        .optional()
        .describe(
          "a shared PostgreSQL store, postgres://user@host:port/db[?schema=NAME]; password from PGPASSWORD or ~/.pgpass",
        ),
    }),
  output: () =>
    z.object({
      workspace: workspaceRef(),
      workspace_id: z.string(),
      store: z.string().optional(),
      joined: z.boolean().optional(),
      warnings: z.array(z.string()).optional(),
    }),
  async handler(input, ctx) {
    const workspace = targetWorkspace(ctx, input.home);
    const location = storeLocationOf(workspace, undefined, ctx.env, input.store);
    requireOwnerLaunch(ctx, "create workspaces", location);
    const warnings = workspace.kind === "project" ? initWarnings(workspace.root, ctx.env) : [];
    const { initWorkspace } = await import("../../domains/workspace/init.js");
    const { workspaceId, store, joined } = await initWorkspace(
      workspace,
      "owner",
      ctx.now(),
      settingOf(ctx.env),
      location,
    );
    await store.close();
    forgetWitness(homeWorkspace(ctx.env).stateDir, workspace.stateDir);
    // A checkout joining a shared board starts its own log too: with the init that joined it.
    auditWorkspaceMade(
      workspace,
      "init",
      { workspace_id: workspaceId, ...(joined ? { joined } : {}) },
      ctx.env,
    );
    return {
      workspace: { root: workspace.root, state_dir: workspace.stateDir, kind: workspace.kind },
      workspace_id: workspaceId,
      store: describeLocation(location),
      joined,
      warnings,
    };
  },
  render: (out) =>
    [
      out.joined
        ? `Joined the shared cairn workspace ${out.store} from ${out.workspace.state_dir}`
        : `Initialized cairn workspace in ${out.workspace.state_dir}${out.store?.startsWith("postgres") ? ` on ${out.store}` : ""}`,
      ...(out.warnings ?? []).map((w) => `warning: ${w}`),
    ].join("\n"),
});

export const exportCommand = defineCommand({
  name: "export",
  summary: "Write the whole workspace as JSONL (to stdout, or --out FILE) for backup and review; owner only",
  effect: "read",
  input: () => z.object({ out: z.string().optional().describe("file to write; default stdout") }),
  output: () =>
    z.object({ lines: z.number().int(), out: z.string().nullable(), jsonl: z.string().optional() }),
  async handler(input, ctx) {
    const path = input.out ? resolve(ctx.cwd, input.out) : null;
    if (path && input.out) {
      requireOutsideState(path, ctx.workspace.stateDir);
      requireNotProtocolStream(path, input.out);
    }
    const { exportWorkspace } = await import("../../domains/transfer/transfer.js");
    const jsonl = await exportWorkspace(ctx.store, ctx.actor, readsHoldouts(ctx), ctx.workspace.configPath);
    const lines = jsonl.split("\n").length - 1;
    if (!path) return { lines, out: null, jsonl };
    await writeReplacing(path, jsonl);
    return { lines, out: path };
  },
  render: (out) =>
    out.jsonl !== undefined ? verbatim(out.jsonl) : `Exported ${out.lines} lines to ${out.out}`,
});

export const importCommand = defineBareCommand({
  name: "import",
  summary: "Create a workspace here and restore a `cairn export` file into it, on SQLite or a shared store",
  effect: "write",
  positional: ["file"],
  input: () =>
    z.object({
      file: z.string().describe("a JSONL file written by `cairn export`"),
      home: z.boolean().optional().describe("restore into the machine-level workspace"),
      store: z
        .string()
        .optional()
        .describe(
          "restore into a new schema of a shared PostgreSQL store, postgres://user@host:port/db[?schema=NAME]; password from PGPASSWORD or ~/.pgpass",
        ),
    }),
  output: () =>
    z.object({
      workspace: workspaceRef(),
      rows: z.number().int(),
      tables: z.record(z.string(), z.number().int()),
      agents: z
        .array(z.object({ id: z.string(), name: z.string(), grant: z.string() }))
        .describe(
          "agents restored unretired: whoever held one's token where the export was made acts here as it",
        ),
      store: z.string().optional(),
    }),
  async handler(input, ctx) {
    const workspace = targetWorkspace(ctx, input.home);
    // Where later commands here will look, as `init` decides it: --store, else CAIRN_STORE_URL.
    const location = storeLocationOf(workspace, undefined, ctx.env, input.store);
    requireOwnerLaunch(ctx, "create workspaces", location);
    const file = resolve(ctx.cwd, input.file);
    requireNotProtocolStream(file, input.file);
    const { readExportFile } = await import("../../domains/transfer/transfer.js");
    const { importIntoNewWorkspace, importIntoSharedStore } = await import(
      "../../domains/transfer/restore.js"
    );
    const jsonl = await readExportFile(file, input.file);
    const { rows, tables, agents } =
      location.kind === "postgres"
        ? await importIntoSharedStore(workspace, location, jsonl, ctx.now(), ctx.signal)
        : await importIntoNewWorkspace(workspace, jsonl, ctx.now(), ctx.signal);
    forgetWitness(homeWorkspace(ctx.env).stateDir, workspace.stateDir);
    auditWorkspaceMade(workspace, "import", { input: { file }, rows }, ctx.env);
    return {
      workspace: { root: workspace.root, state_dir: workspace.stateDir, kind: workspace.kind },
      rows,
      tables,
      agents,
      store: describeLocation(location),
    };
  },
  render: (out) =>
    `Imported ${out.rows} rows into ${out.workspace.state_dir}${out.store?.startsWith("postgres") ? ` on ${out.store}` : ""}` +
    (out.agents.length > 0
      ? `\n${out.agents.length} agent${out.agents.length === 1 ? "" : "s"} can act here with the token${out.agents.length === 1 ? "" : "s"} held where the export was made: ${out.agents
          .slice(0, 10)
          .map((agent) => `${agent.id} ${agent.name} (${agent.grant})`)
          .join(
            ", ",
          )}${out.agents.length > 10 ? `, and ${out.agents.length - 10} more (cairn agent list)` : ""}\n` +
        "next: `cairn agent rotate AGENT` or `cairn agent retire AGENT` for any you do not run here"
      : ""),
});
