import { isPostgresUrl, type PgLocation } from "./postgres/location.js";
import { openPostgresStore } from "./postgres/pg-store.js";
import { type OpenOptions, openSqliteStore } from "./sqlite/sqlite-store.js";
import type { Store } from "./store.js";

export type { OpenOptions, PgLocation };

/** Where a workspace's store lives: an embedded SQLite file, or a schema on a PostgreSQL server. */
export type StoreLocation = { kind: "sqlite"; path: string } | ({ kind: "postgres" } & PgLocation);

/** The one place that picks a store implementation; domains only ever see `Store`. */
export function openStore(target: string | StoreLocation, options: OpenOptions = {}): Store {
  const location: StoreLocation = typeof target === "string" ? { kind: "sqlite", path: target } : target;
  if (location.kind === "postgres") return openPostgresStore(location, options);
  return openSqliteStore(location.path, options);
}

export { isBlankSqliteDatabase } from "./sqlite/blank.js";
export { isPostgresUrl };
