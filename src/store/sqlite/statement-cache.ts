import type Database from "better-sqlite3";

/**
 * Statements whose SQL is built per call from the shape of a query (how many scopes, which
 * filters, which columns change): a handful of shapes in practice, each prepared once per
 * connection, since preparing costs more than running most of them. Bounded, so a caller that
 * builds endless shapes only loses the cache, never memory. `raw` statements return arrays.
 *
 * A bound LIMIT or OFFSET is written `LIMIT +?`, never as a bare parameter: SQLite compiles a
 * statement with a bare one again at every run (test/unit/sqlite-bound-limits.test.ts says why,
 * and holds the store to it).
 */
export function statementCache<Row = unknown>(
  db: Database.Database,
  options: { raw?: boolean; max?: number } = {},
): (sql: string) => Database.Statement<unknown[], Row> {
  const statements = new Map<string, Database.Statement<unknown[], Row>>();
  return (sql) => {
    let statement = statements.get(sql);
    if (!statement) {
      if (statements.size >= (options.max ?? 64)) statements.clear();
      statement = db.prepare<unknown[], Row>(sql);
      if (options.raw) statement.raw(true);
      statements.set(sql, statement);
    }
    return statement;
  };
}

const perConnection = new WeakMap<
  Database.Database,
  (sql: string) => Database.Statement<unknown[], unknown>
>();
const rawPerConnection = new WeakMap<
  Database.Database,
  (sql: string) => Database.Statement<unknown[], unknown>
>();

/** A built statement from the connection's own cache, for helpers that have no repository of their own. */
export function builtStatement(
  db: Database.Database,
  sql: string,
  raw = false,
): Database.Statement<unknown[], unknown> {
  const caches = raw ? rawPerConnection : perConnection;
  let cache = caches.get(db);
  if (!cache) {
    cache = statementCache(db, { raw });
    caches.set(db, cache);
  }
  return cache(sql);
}
