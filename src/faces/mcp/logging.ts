import type { ProgressUpdate } from "../../commands/context.js";

/** One progress update as a log line a person can read in a client's log pane. */
export function progressLine(update: ProgressUpdate): string {
  const count = update.total !== undefined ? `${update.progress}/${update.total}` : String(update.progress);
  return update.message ? `${update.message} (${count})` : `progress ${count}`;
}
