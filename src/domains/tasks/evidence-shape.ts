import { z } from "zod";

/**
 * What cairn records when it runs a criterion's command (store/tasks.ts `Evidence`), as a schema:
 * the shape a task's view publishes and the shape an import must find, written once.
 */
export const EvidenceShape = z.object({
  argv: z.array(z.string()),
  exit_code: z.number().nullable(),
  signal: z.string().nullable(),
  timed_out: z.boolean(),
  duration_ms: z.number(),
  output_bytes: z.number(),
  output_tail: z.string(),
  output_sha256: z.string(),
  git_head: z.string().nullable(),
  error: z.string().nullable(),
  at: z.string(),
  tree: z.string().optional().describe("git tree id of the checkout's content the command judged"),
  tree_after: z.string().optional().describe("the tree after the command, where the command changed it"),
  shortcut: z
    .object({
      name: z.string(),
      version: z.number(),
      source: z.enum(["config", "store"]),
      argv: z.array(z.string()),
    })
    .optional(),
});
