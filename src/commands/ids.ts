import { z } from "zod";
import { canonicalShortId } from "../kernel/short-id.js";

/**
 * What the id-completion commands (`task ids`, `goal ids`) share: MCP completion asks them at
 * each keystroke, so they answer one page of ids and count the rest rather than list them.
 */

/** Ids answered at most: what one MCP completion may send. */
export const MAX_IDS = 100;

/** Longer than any id: nothing typed past this can complete to one. */
export const MAX_ID_PREFIX = 64;

export const idsInput = (what: "task" | "goal") =>
  z.object({
    prefix: z.string().max(MAX_ID_PREFIX).optional().describe(`the start of a ${what} id; omit for them all`),
    limit: z.number().int().min(1).max(MAX_IDS).optional().describe(`default ${MAX_IDS}`),
  });

export const IdsOutput = z.object({
  ids: z.array(z.string()),
  total: z.number().describe("every match, past the limit too"),
});

export const renderIds = (out: z.infer<typeof IdsOutput>) =>
  out.ids.length === 0 ? "No ids match." : [...out.ids, `(${out.ids.length} of ${out.total})`].join("\n");

/**
 * An input naming one kind of record by its short id (`G`, `AT`, `F`, ...): from either face, the
 * handler gets `G-3` for `g-3` or `3`, and the published schema stays a plain string.
 */
export const shortId = (prefix: string) => z.string().overwrite((raw) => canonicalShortId(raw, prefix));
