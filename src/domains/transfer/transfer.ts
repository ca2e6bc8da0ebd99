import { closeSync, existsSync, readFile } from "node:fs";
import { z } from "zod";
import { conflict, notFound, operational, refuse, usageError } from "../../kernel/outcome.js";
import { openRegularFile, readRegularFile } from "../../kernel/regular-file.js";
import { quoteValue } from "../../kernel/text.js";
import { CAIRN_VERSION } from "../../kernel/version.js";
import { readsExportsOf } from "../../store/export-schema.js";
import type { DumpRecord, Store } from "../../store/store.js";
import type { Actor } from "../identity/actor.js";
import { COUNT_CEILING, checkRecordLimits, recordCounts } from "./limits.js";
import { checkRelations } from "./relations.js";
import { checkRecordShape } from "./shapes.js";
import { withoutStoreTable } from "./store-table.js";

const FORMAT = "cairn-export";

const Header = z.object({
  format: z.literal(FORMAT),
  schema: z.number().int(),
  cairn: z.string(),
  /** The workspace's cairn.toml, verbatim: roles, shortcuts and the definition of done are part of it. */
  config: z.string().optional(),
  /**
   * How many records follow. A file cut at a line boundary is still valid JSONL, so without the
   * count a truncated backup would restore as a smaller workspace (a task without its criteria).
   * Exports written before the count existed carry none and are taken as they are.
   */
  rows: z.number().int().min(0).optional(),
  /**
   * Counters ahead of the rows: the highest id a table ever handed out, where the rows holding it
   * were deleted since (a forgotten fact). The import raises its counters to these, so no id is
   * ever handed out twice. Exports written before it existed carry none: ids follow the rows.
   */
  counters: z.record(z.string(), z.number().int().min(0).max(COUNT_CEILING)).optional(),
});
/**
 * A stored row holds only what a column can: text, a number or null. Anything else (an object, a
 * list, true) was never exported, and reached the database driver as a bind error naming no line.
 */
const Line = z.object({
  table: z.string().min(1),
  row: z
    .record(z.string(), z.union([z.string(), z.number(), z.null()]))
    .refine((row) => Object.keys(row).length > 0, "a row has at least one column"),
});

/**
 * The workspace as JSONL: a header line, then one line per stored row, in a deterministic order.
 * Only the owner may take it: it holds every hidden evaluator's command and output, and holdouts
 * stop being holdouts once a building agent can read them.
 */
export async function exportWorkspace(
  store: Store,
  actor: Pick<Actor, "isOwner" | "name">,
  /** Whether the caller reads holdouts (goals' readsHoldouts): the owner, as a person. */
  readsHidden: boolean,
  configPath?: string,
): Promise<string> {
  if (!actor.isOwner) {
    throw refuse(
      "ownership",
      `${actor.name} may not export the workspace: an export includes hidden evaluators`,
      "ask the workspace owner for a backup",
    );
  }
  // A model's session with no agent token is the owner's, and the model is a builder all the same.
  if (!readsHidden) {
    throw refuse(
      "person",
      "an export includes hidden evaluators, which no tool result shows a model, the owner's session included",
      "the person exports at a terminal (cairn export)",
    );
  }
  const { records, counters } = await store.read(async (tx) => ({
    records: await tx.transfer.dump(),
    counters: await tx.transfer.counters(),
  }));
  const config = configPath && existsSync(configPath) ? readRegularFile(configPath) : undefined;
  const header = JSON.stringify({
    format: FORMAT,
    schema: store.schemaVersion,
    cairn: CAIRN_VERSION,
    config,
    rows: records.length,
    counters: Object.keys(counters).length > 0 ? counters : undefined,
  });
  return `${[header, ...records.map((record) => JSON.stringify(record))].join("\n")}\n`;
}

/**
 * The text of the export file `cairn import` restores (`named` as the caller wrote it), opened
 * only if it is a regular file. A FIFO in its place held the open, and the process with it past
 * SIGTERM (its exit waits for the open), until someone wrote to the FIFO. A file that is not
 * there is not found, not an operational failure.
 */
export async function readExportFile(path: string, named: string): Promise<string> {
  let fd: number;
  try {
    fd = openRegularFile(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const next = "name a file written by `cairn export`";
    if (code === "ENOENT") throw notFound(`no file ${quoteValue(named)}`, next);
    if (code === "ENOTREG") throw usageError(`${quoteValue(named)} is not a regular file`, next);
    throw error;
  }
  try {
    return await new Promise<string>((resolve, reject) =>
      readFile(fd, "utf8", (error, text) => (error ? reject(error) : resolve(text))),
    );
  } finally {
    closeSync(fd);
  }
}

/** An agent the import restored unretired: whoever holds its token acts here as it. */
export interface RestoredAgent {
  id: string;
  name: string;
  grant: string;
}

export interface ImportSummary {
  rows: number;
  tables: Record<string, number>;
  /**
   * The agents restored unretired. Their tokens came with the file (as hashes): whoever held one
   * where the export was made acts here as that agent, so the person importing is told who can.
   */
  agents: RestoredAgent[];
  /** The exported cairn.toml without its store setting, when the export carried one. */
  config?: string;
}

/** Restore an export into a workspace that holds nothing yet; all or nothing. */
export async function importWorkspace(
  store: Store,
  actor: Pick<Actor, "id">,
  jsonl: string,
  now: string,
  options: {
    signal?: AbortSignal;
    /** What a store already holding rows says; by default, that the workspace holds them. */
    occupied?: (rows: number) => Error;
  } = {},
): Promise<ImportSummary> {
  const { signal } = options;
  // A large import takes a minute: every few thousand rows it lets the process see a Ctrl-C, a
  // cancel or a stop signal, which it would otherwise handle only once the import had finished.
  const pause = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    if (signal?.aborted) throw operational("cancelled: the import was stopped and nothing was imported");
  };
  const lines = jsonl.split("\n").filter((line) => line.trim() !== "");
  if (lines.length === 0)
    throw usageError("import: the input is empty", "pass a file written by `cairn export`");
  const header = Header.safeParse(parseLine(lines[0] as string, 1));
  if (!header.success) {
    const issue = header.error.issues[0];
    const where = issue?.path.map(String).join(".");
    throw usageError(
      `import: the first line is not a cairn export header${where ? ` (${quoteValue(where)}: ${issue?.message})` : ""}`,
    );
  }
  // The new workspace names its own store: the exported one (the source's server) is cut out
  // before anything is written, and a form that cannot be cut out refuses the import.
  const config = header.data.config !== undefined ? withoutStoreTable(header.data.config) : undefined;
  if (!readsExportsOf(header.data.schema, store.schemaVersion)) {
    throw usageError(
      `import: the export has schema ${header.data.schema}, this workspace has ${store.schemaVersion}`,
      header.data.schema > store.schemaVersion
        ? "upgrade cairn to the version that wrote it, or newer"
        : "import it into a new workspace (`cairn import FILE`), which restores it at its schema and migrates it",
    );
  }
  // Every record is checked before anything is written: one bad line refuses the whole file.
  const records: DumpRecord[] = [];
  const countRecord = recordCounts();
  for (let index = 0; index < lines.length - 1; index++) {
    if (index % 2_000 === 1_999) await pause();
    const line = lines[index + 1] as string;
    const parsed = Line.safeParse(parseLine(line, index + 2));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.map(String).join(".") ?? "";
      throw usageError(
        `import: line ${index + 2} is not a {table,row} record${where ? ` (${quoteValue(where)})` : ""}`,
        "a row maps column names to text, numbers or null, as `cairn export` writes them",
      );
    }
    checkRecordLimits(parsed.data, index + 2);
    countRecord(parsed.data, index + 2);
    checkRecordShape(parsed.data, index + 2);
    records.push(parsed.data);
  }
  checkRelations(records);
  return store.write(async (tx) => {
    const existing = await tx.transfer.contentCount();
    if (existing > 0) {
      throw (
        options.occupied?.(existing) ??
        conflict(
          `import: this workspace already holds ${existing} rows`,
          "import into a fresh `cairn init` workspace",
        )
      );
    }
    await tx.transfer.restore(records, pause);
    if (header.data.counters) await tx.transfer.raiseCounters(header.data.counters);
    // Checked last, so a record that cannot be restored is named first; the throw rolls back.
    const expected = header.data.rows;
    if (expected !== undefined && expected !== records.length) {
      throw usageError(
        `import: the export's header counts ${expected} records, the file holds ${records.length}`,
        "the file is truncated or was edited: nothing was imported; export the workspace again",
      );
    }
    await tx.journal.append({
      at: now,
      actor: actor.id,
      action: "workspace.import",
      subject: "workspace",
      data: { rows: records.length },
    });
    const tables: Record<string, number> = {};
    const agents: RestoredAgent[] = [];
    for (const record of records) {
      tables[record.table] = (tables[record.table] ?? 0) + 1;
      const { id, name, grant_level: grant, retired_at: retired } = record.row;
      if (record.table === "agents" && (retired === null || retired === undefined))
        agents.push({ id: String(id), name: String(name), grant: String(grant) });
    }
    // Last look before the commit: a stop asked for while the import waited (for the workspace
    // lock, a small file's only wait) rolls it back instead of going unheard.
    await pause();
    return { rows: records.length, tables, agents, config };
  });
}

function parseLine(line: string, number: number): unknown {
  try {
    return JSON.parse(line);
  } catch {
    throw usageError(`import: line ${number} is not JSON`);
  }
}
