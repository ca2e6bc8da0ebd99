import type { StoreLocation } from "./open.js";
import { type OpenOptions, openSqliteStore } from "./sqlite/sqlite-store.js";
import type { Store } from "./store.js";

/**
 * `openStore` for a process that opens one store: the PostgreSQL store (and what it brings in,
 * node:crypto among them) is evaluated only when the workspace lives on PostgreSQL, so a CLI
 * call on a SQLite workspace never pays for it.
 */
export async function openStoreLazily(location: StoreLocation, options: OpenOptions = {}): Promise<Store> {
  if (location.kind === "postgres") return (await import("./open.js")).openStore(location, options);
  return openSqliteStore(location.path, options);
}
