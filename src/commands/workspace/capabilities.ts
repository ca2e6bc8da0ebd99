import { z } from "zod";
import { PROFILES } from "../../domains/workspace/config.js";
import { CAIRN_VERSION, MCP_PROTOCOL_VERSION, TOOL_SCHEMA_VERSION } from "../../kernel/version.js";
import { Session } from "../context.js";
import { defineBareCommand } from "../define.js";

/** Derived from the same tables the CLI and `tools/list` are built from, so it cannot advertise what they lack. */
export const capabilities = defineBareCommand({
  name: "capabilities",
  summary: "Every command and MCP tool with its schema version, plus protocol and server versions",
  effect: "read",
  input: () => z.object({}),
  output: () =>
    z.object({
      server: z.object({ name: z.literal("cairn"), version: z.string() }),
      protocol_version: z.string(),
      commands: z.array(
        z.object({
          name: z.string(),
          schema_version: z.number().int(),
          effect: z.enum(["read", "write", "destructive"]),
          summary: z.string(),
        }),
      ),
      tools: z.array(
        z.object({
          name: z.string(),
          schema_version: z.number().int(),
          wraps: z.string(),
          profiles: z.array(z.enum(PROFILES)),
          read_only: z.boolean(),
          destructive: z.boolean(),
        }),
      ),
      catalog: z
        .object({
          tools: z.array(
            z.object({
              name: z.string(),
              schema_version: z.number().int(),
              wraps: z.string(),
              profiles: z.array(z.enum(PROFILES)),
              read_only: z.boolean(),
              destructive: z.boolean(),
            }),
          ),
          error: z.object({ file: z.string(), reason: z.string() }).nullable(),
        })
        .describe("file-backed tools (agents, skills, ...) found from here; none outside a workspace"),
      /** Every text field's size limit: what a caller may send before it is refused. */
      limits: z.object({
        default_chars: z.number().int(),
        default_items: z.number().int(),
        fields: z.record(z.string(), z.number().int()),
        items: z.record(z.string(), z.number().int()),
        commands: z
          .record(z.string(), z.record(z.string(), z.number().int()))
          .describe("per command, fields whose limit differs from `fields`"),
        totals: z
          .object({
            chars: z.record(z.string(), z.number().int()),
            items: z.record(z.string(), z.number().int()),
          })
          .describe("what many values hold together: a command's words, a queue's steps, a contract"),
      }),
    }),
  async handler(_input, ctx) {
    // The whole table, loaded here rather than at import: a CLI call evaluates only its own domain.
    const { COMMANDS_BY_NAME, TOOLS } = await import("../registry.js");
    const { toolAnnotations } = await import("../tool-schemas.js");
    const { limitsTable } = await import("../../domains/limits/limits.js");
    return {
      server: { name: "cairn" as const, version: CAIRN_VERSION },
      protocol_version: MCP_PROTOCOL_VERSION,
      // One schema version for the whole table: commands and the tools over them alike.
      commands: [...COMMANDS_BY_NAME.values()].map((c) => ({
        name: c.name,
        schema_version: TOOL_SCHEMA_VERSION,
        effect: c.effect,
        summary: c.summary,
      })),
      tools: TOOLS.map((tool) => {
        const annotations = toolAnnotations(tool, COMMANDS_BY_NAME);
        return {
          name: tool.name,
          schema_version: TOOL_SCHEMA_VERSION,
          wraps: "cli" in tool.wraps ? "cli" : tool.wraps.command,
          profiles: [...tool.profiles],
          read_only: annotations.readOnlyHint,
          destructive: annotations.destructiveHint,
        };
      }),
      catalog: await fileBackedTools(ctx.cwd, ctx.env),
      limits: limitsTable(),
    };
  },
  render: (out) =>
    [
      `cairn ${out.server.version} (MCP ${out.protocol_version})`,
      "commands:",
      ...out.commands.map(
        (c) => `  ${c.name.padEnd(16)} v${c.schema_version} ${c.effect.padEnd(11)} ${c.summary}`,
      ),
      "tools:",
      ...out.tools.map((t) => `  ${t.name.padEnd(16)} v${t.schema_version} ${t.profiles.join(",")}`),
      ...out.catalog.tools.map(
        (t) => `  ${t.name.padEnd(16)} v${t.schema_version} file ${t.profiles.join(",")}`,
      ),
      ...(out.catalog.error ? [`catalog error: ${out.catalog.error.file}: ${out.catalog.error.reason}`] : []),
    ].join("\n"),
});

/** The file-backed tools the workspace found from here would serve, per profile. */
async function fileBackedTools(cwd: string, env: NodeJS.ProcessEnv) {
  const { catalogSources, describeCatalog } = await import("../catalog-build.js");
  const { toolsForProfile } = await import("../tools.js");
  if (catalogSources().length === 0) return { tools: [], error: null };
  const session = new Session({ cwd, env });
  try {
    const ctx = await session.context().catch(() => undefined);
    if (!ctx) return { tools: [], error: null };
    return await describeCatalog(
      ctx,
      PROFILES,
      (profile) => new Set(toolsForProfile(profile).map((t) => t.name)),
    );
  } finally {
    await session.close();
  }
}
