import { z } from "zod";

/**
 * The paging every list a writer can grow takes (as `task list` and `goal list` do): `limit`
 * (a default, and a most one page may hold) and `offset`; the output says `total` and the
 * `next_offset` to pass back, null on the last page.
 */
export const pageInput = (defaultLimit: number, maxLimit: number) => ({
  limit: z
    .number()
    .int()
    .min(1)
    .max(maxLimit)
    .optional()
    .describe(`default ${defaultLimit}, at most ${maxLimit}`),
  offset: z.number().int().min(0).optional().describe("skip this many (a page's next_offset)"),
});

export const pageOutput = { total: z.number().int(), next_offset: z.number().int().nullable() };

/** Where the next page starts, or null when this one reached the end. */
export const nextOffset = (offset: number, shown: number, total: number): number | null =>
  offset + shown < total ? offset + shown : null;

/** The line a text rendering ends with when the page is not all there is. */
export const pageFooter = (out: { total: number; next_offset: number | null }, shown: number): string[] =>
  shown < out.total
    ? [`(${shown} of ${out.total}${out.next_offset !== null ? `; next: --offset ${out.next_offset}` : ""})`]
    : [];

/**
 * The most a page of whole texts may hold as JSON. An MCP answer goes out twice (as text and as
 * structured content) in at most 9 MiB (faces/mcp/results.ts), so a page within 4 MiB always
 * fits; a page past it was refused whole as too large to send.
 */
export const PAGE_JSON_BYTES = 4 * 1024 * 1024;

/**
 * The leading items of a page that fit in `budget` bytes of JSON, and always the first: a page of
 * items any writer can fill to their limits (ten risks of 512 KiB) then ends early, and its
 * next_offset names the first item left out, rather than the whole answer failing.
 */
export function withinBytes<T>(items: readonly T[], budget = PAGE_JSON_BYTES): T[] {
  const kept: T[] = [];
  let used = 0;
  for (const item of items) {
    used += Buffer.byteLength(JSON.stringify(item), "utf8");
    if (kept.length > 0 && used > budget) break;
    kept.push(item);
  }
  return kept;
}
