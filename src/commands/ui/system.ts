import { z } from "zod";
import { describeLocation } from "../../domains/workspace/store-location.js";
import { CAIRN_VERSION, MCP_PROTOCOL_VERSION } from "../../kernel/version.js";
import { defineCommand } from "../define.js";

export const systemCommand = defineCommand({
  name: "system",
  summary: "Versions, the workspace database and its size, and the latest event",
  effect: "read",
  input: z.object({}),
  output: z.object({
    cairn: z.string(),
    protocol: z.string(),
    node: z.string(),
    schema: z.number(),
    workspace: z.string(),
    database: z.string().describe("the SQLite file, or the PostgreSQL server (no password) and schema"),
    database_bytes: z
      .number()
      .describe(
        "SQLite: the file plus its write-ahead log; PostgreSQL: the schema's tables, indexes and sequences",
      ),
    data_version: z.number(),
    last_event: z.object({ id: z.number(), at: z.string(), action: z.string() }).nullable(),
  }),
  async handler(_input, ctx) {
    const [last, bytes] = await ctx.store.read(
      async (tx) => [(await tx.journal.recent(1))[0], await tx.counts.bytes()] as const,
    );
    return {
      cairn: CAIRN_VERSION,
      protocol: MCP_PROTOCOL_VERSION,
      node: process.version,
      schema: ctx.store.schemaVersion,
      workspace: ctx.workspace.root,
      // The store this process reads, wherever cairn.toml points now (a server keeps its store).
      database: describeLocation(ctx.storeLocation),
      database_bytes: bytes,
      data_version: ctx.store.changes.version(),
      last_event: last ? { id: last.id, at: last.at, action: last.action } : null,
    };
  },
});

export const pulseCommand = defineCommand({
  name: "pulse",
  summary: "A cheap change check for watchers: the store's change signal and the latest event id",
  effect: "read",
  input: z.object({
    known: z.number().optional().describe("the version last seen: when unchanged, the journal is not read"),
  }),
  output: z.object({
    version: z.number(),
    last_event: z.number().nullable().describe("null when the version is the known one"),
  }),
  async handler(input, ctx) {
    const version = ctx.store.changes.version();
    if (input.known === version) return { version, last_event: null };
    const [last] = await ctx.store.read((tx) => tx.journal.recent(1));
    return { version, last_event: last?.id ?? 0 };
  },
});
