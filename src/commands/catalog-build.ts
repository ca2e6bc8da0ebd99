import { z } from "zod";
import type { Profile } from "../domains/workspace/config.js";
import { TOOL_SCHEMA_VERSION } from "../kernel/version.js";
import { type CatalogBuild, CatalogError, type CatalogSource, type CatalogTool } from "./catalog.js";
import { compactInputJson } from "./catalog-compact.js";
import type { SessionContext } from "./context.js";
import type { AnyCommand } from "./define.js";
import { COMMANDS_BY_NAME, DOMAINS } from "./registry.js";
import { jsonSchemaOf, RefusedEnvelope, SCHEMA_VERSION_FIELD } from "./tool-schemas.js";

export type { CatalogTool };

/** Every domain's file-backed catalog, in domain order (the order collisions are settled in). */
export function catalogSources(): CatalogSource[] {
  return DOMAINS.flatMap((domain) => (domain.catalog ? [domain.catalog] : []));
}

/**
 * Clients prefix a server's tools (`mcp__cairn__run-nightly`) and many cap the whole name at 64
 * characters, so a catalog name keeps to the MCP alphabet and leaves room for the prefix.
 */
export const CLIENT_PREFIX = "mcp__cairn__";
export const MAX_CATALOG_NAME = 64 - CLIENT_PREFIX.length;
const CATALOG_NAME = new RegExp(`^[A-Za-z0-9_-]{1,${MAX_CATALOG_NAME}}$`);

/**
 * Rebuild every file-backed catalog, fresh from disk. The first tool to claim a name keeps it
 * (hand-kept tools first, then domains in order); a later claimant is dropped with a warning.
 * A `CatalogError` propagates: the caller answers it, never a partial list.
 */
export async function buildCatalog(
  ctx: SessionContext,
  profile: Profile,
  options: { sources?: readonly CatalogSource[]; reserved?: ReadonlySet<string> } = {},
): Promise<CatalogBuild> {
  const sources = options.sources ?? catalogSources();
  const taken = new Set(options.reserved ?? []);
  const tools: CatalogTool[] = [];
  const warnings: string[] = [];
  for (const source of sources) {
    const built = await source.build(ctx, profile);
    warnings.push(...built.warnings);
    for (const tool of built.tools) {
      if (!CATALOG_NAME.test(tool.name)) {
        warnings.push(
          `tool name ${JSON.stringify(tool.name)} is not [A-Za-z0-9_-]{1,${MAX_CATALOG_NAME}}: dropped`,
        );
      } else if (taken.has(tool.name)) {
        warnings.push(`tool ${tool.name} is already taken by an earlier tool: the later one is dropped`);
      } else if (!COMMANDS_BY_NAME.has(tool.command)) {
        warnings.push(`tool ${tool.name} names unknown command ${tool.command}: dropped`);
      } else {
        taken.add(tool.name);
        tools.push(tool);
      }
    }
  }
  return { tools, warnings };
}

/** The watched paths of every catalog, deduplicated. */
export function catalogWatched(
  ctx: SessionContext,
  sources: readonly CatalogSource[] = catalogSources(),
): string[] {
  return [...new Set(sources.flatMap((source) => source.watched(ctx)))];
}

export function catalogCommand(tool: CatalogTool): AnyCommand {
  const command = COMMANDS_BY_NAME.get(tool.command);
  if (!command) throw new Error(`tool ${tool.name} names unknown command ${tool.command}`);
  return command;
}

/** Many tools share one input shape (every `run-<agent>`): its schemas are derived once. */
const INPUTS = new WeakMap<z.ZodObject, { input: z.ZodObject; inputJson: Record<string, unknown> }>();
const OUTPUTS = new Map<string, { output: z.ZodType; outputJson: Record<string, unknown> }>();

/** What a file-backed tool publishes and validates with, derived like a hand-kept tool's. */
export function catalogToolSchemas(tool: CatalogTool) {
  const command = catalogCommand(tool);
  let inputs = INPUTS.get(tool.input);
  if (!inputs) {
    const input = z.strictObject({ ...tool.input.shape, schema_version: SCHEMA_VERSION_FIELD });
    inputs = { input, inputJson: compactInputJson(jsonSchemaOf(input, "input")) };
    INPUTS.set(tool.input, inputs);
  }
  let outputs = OUTPUTS.get(command.name);
  if (!outputs) {
    const { type: _object, ...ok } = jsonSchemaOf(command.output, "output");
    outputs = {
      output: z.union([command.output, RefusedEnvelope]),
      outputJson: { type: "object", anyOf: [ok, { required: ["refused"] }] },
    };
    OUTPUTS.set(command.name, outputs);
  }
  return {
    ...inputs,
    ...outputs,
    annotations: {
      readOnlyHint: command.effect === "read",
      destructiveHint: command.effect === "destructive",
      idempotentHint: tool.idempotent ?? false,
      openWorldHint: false,
    },
  };
}

/** One file-backed tool as `capabilities` lists it. */
export interface CatalogEntry {
  name: string;
  /** The `schema_version` its input requires, as every tool's does. */
  schema_version: number;
  wraps: string;
  profiles: Profile[];
  read_only: boolean;
  destructive: boolean;
}

/**
 * The file-backed tools as each profile would list them, or the file that stops the catalog
 * from being built. For `capabilities`: what `tools/list` serves, from the same code.
 */
export async function describeCatalog(
  ctx: SessionContext,
  profiles: readonly Profile[],
  reservedFor: (profile: Profile) => ReadonlySet<string>,
): Promise<{ tools: CatalogEntry[]; error: { file: string; reason: string } | null }> {
  const entries = new Map<string, CatalogEntry>();
  try {
    for (const profile of profiles) {
      const built = await buildCatalog(ctx, profile, { reserved: reservedFor(profile) });
      for (const tool of built.tools) {
        const annotations = catalogToolSchemas(tool).annotations;
        const entry = entries.get(tool.name) ?? {
          name: tool.name,
          schema_version: TOOL_SCHEMA_VERSION,
          wraps: tool.command,
          profiles: [],
          read_only: annotations.readOnlyHint,
          destructive: annotations.destructiveHint,
        };
        entry.profiles.push(profile);
        entries.set(tool.name, entry);
      }
    }
  } catch (error) {
    if (!(error instanceof CatalogError)) throw error;
    return { tools: [], error: { file: error.file, reason: error.reason } };
  }
  return { tools: [...entries.values()], error: null };
}
