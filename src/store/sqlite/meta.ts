import type Database from "better-sqlite3";
import type { MetaRepo } from "../store.js";

export function sqliteMeta(db: Database.Database): MetaRepo {
  const get = db.prepare<[string], { value: string }>("SELECT value FROM meta WHERE key = ?");
  const set = db.prepare(
    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
  );
  return {
    async get(key) {
      return get.get(key)?.value;
    },
    async set(key, value) {
      set.run(key, value);
    },
  };
}
