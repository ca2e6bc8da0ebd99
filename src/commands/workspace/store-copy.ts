import { z } from "zod";
import { defineCommand } from "../define.js";

export const storeCopy = defineCommand({
  name: "store copy",
  summary:
    "Copy the whole workspace losslessly into a new store (postgres://… or a SQLite file), verified; owner only",
  effect: "read",
  input: () =>
    z.object({
      to: z
        .string()
        .min(1)
        .describe(
          "postgres://user@host:port/db[?schema=NAME] (password from PGPASSWORD or ~/.pgpass) or a new .db path",
        ),
    }),
  output: () =>
    z.object({
      from: z.string(),
      to: z.string(),
      rows: z.number().int(),
      tables: z.number().int(),
      verified: z.literal(true),
      next: z.string(),
    }),
  async handler(input, ctx) {
    // Loaded here: the copy brings in both stores, which no other workspace command needs.
    const { copyWorkspace } = await import("../../domains/workspace/copy.js");
    const copied = await copyWorkspace(
      ctx.workspace,
      ctx.config,
      ctx.env,
      ctx.actor,
      ctx.cwd,
      input.to,
      ctx.signal,
    );
    const next = copied.to.startsWith("postgres")
      ? "to switch this workspace, set [store] url and schema in .cairn/cairn.toml (checkouts follow when it is committed)"
      : "to switch this workspace back, remove [store] from .cairn/cairn.toml and move the file to .cairn/cairn.db";
    return { ...copied, verified: true as const, next };
  },
  render: (out) =>
    `Copied ${out.rows} rows from ${out.from} to ${out.to}; both exports are identical.\nnext: ${out.next}`,
});
