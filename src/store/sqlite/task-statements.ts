import type Database from "better-sqlite3";
import { type TaskRow, taskRowOf } from "./task-rows.js";

/**
 * A statement reading task rows as values and handing them on as rows: better-sqlite3 builds a
 * keyed object of twenty columns at about twice the cost of the array, which was most of reading
 * a page of tasks. The statement must select COLUMNS, in their order, first.
 */
export function taskRows<P extends unknown[]>(statement: Database.Statement<P, unknown[]>) {
  statement.raw(true);
  return {
    get: (...params: P): TaskRow | undefined => {
      const values = statement.get(...params) as unknown[] | undefined;
      return values ? taskRowOf(values) : undefined;
    },
    all: (...params: P): TaskRow[] =>
      (statement.all(...params) as unknown[][]).map((values) => taskRowOf(values)),
    *iterate(...params: P): IterableIterator<TaskRow> {
      for (const values of statement.iterate(...params)) yield taskRowOf(values as unknown[]);
    },
  };
}
