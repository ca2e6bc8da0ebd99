import type { MetaRepo } from "../store.js";
import type { PgDb } from "./db.js";

export function pgMeta(db: PgDb): MetaRepo {
  const get = db.prepare<[string], { value: string }>("SELECT value FROM meta WHERE key = ?");
  const set = db.prepare(
    "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
  );
  return {
    async get(key) {
      return (await get.get(key))?.value;
    },
    async set(key, value) {
      await set.run(key, value);
    },
  };
}
