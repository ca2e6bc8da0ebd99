import { type OpenOptions, openSqliteStore } from "./sqlite/sqlite-store.js";
import type { Store } from "./store.js";

export type { OpenOptions };

/** The one place that picks a store implementation; domains only ever see `Store`. */
export function openStore(databasePath: string, options: OpenOptions = {}): Store {
  return openSqliteStore(databasePath, options);
}
