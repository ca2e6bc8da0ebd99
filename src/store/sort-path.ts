/**
 * A task's own step of its place in the tree (`sort_path`: its ancestors' steps, then its own,
 * joined by "/"): its seq, wide enough for a billion tasks, so string order is numeric order.
 */
export const sortSegment = (seq: number) => String(seq).padStart(9, "0");

/** The place of the task numbered `seq` under the parent placed at `parentPath` ("" at the root). */
export const sortPathUnder = (parentPath: string, seq: number) =>
  parentPath ? `${parentPath}/${sortSegment(seq)}` : sortSegment(seq);
