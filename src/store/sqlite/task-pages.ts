import type Database from "better-sqlite3";
import type { TaskOrder } from "../tasks.js";
import { builtStatement } from "./statement-cache.js";
import {
  COLUMNS,
  HELD_COLUMNS,
  type HeldRow,
  heldRowOf,
  SUMMARY_COLUMNS,
  type SummaryRow,
  summaryRowOf,
  type TaskRow,
  taskRowOf,
} from "./task-rows.js";

/**
 * `total` is counted up to this many matches past the requested page. Counting every match of a
 * broad filter on a large board costs time in proportion to the board; "more than a thousand
 * beyond this page" is all a reader paging through it can use. A capped count says so.
 */
export const COUNTED_BEYOND_PAGE = 1_000;

/** Each list order ends on the tree position, so pages never overlap or skip a row. */
export const TASK_ORDER_BY: Record<TaskOrder, string> = {
  tree: "sort_path",
  priority: "priority_rank, sort_path",
  status:
    "CASE status WHEN 'active' THEN 0 WHEN 'blocked' THEN 1 WHEN 'open' THEN 2 WHEN 'done' THEN 3 ELSE 4 END, sort_path",
  updated: "updated_at DESC, sort_path",
  created: "created_at DESC, seq DESC",
  title: "lower(title), sort_path",
};

export interface PageQuery {
  /** `WHERE …` over the filters other than status, or "". */
  where: string[];
  values: Record<string, unknown>;
  statuses: readonly string[];
  /** Owner or parent narrow the rows enough for the planner's own choice of index. */
  selective: boolean;
  limit: number;
  offset: number;
  /** `ORDER BY` terms; tree order (`sort_path`) is the one the status merge below serves. */
  orderBy: string;
}

const clause = (where: string[]) => (where.length > 0 ? `WHERE ${where.join(" AND ")}` : "");

function statusWhere(query: PageQuery): { where: string[]; values: Record<string, unknown> } {
  if (query.statuses.length === 0) return { where: query.where, values: query.values };
  const values = { ...query.values };
  query.statuses.forEach((status, i) => {
    values[`s${i}`] = status;
  });
  return {
    where: [`status IN (${query.statuses.map((_, i) => `@s${i}`).join(", ")})`, ...query.where],
    values,
  };
}

/** How many tasks match, exactly up to the cap, and whether the cap was reached. */
export function countPage(db: Database.Database, query: PageQuery): { total: number; capped: boolean } {
  const { where, values } = statusWhere(query);
  const cap = query.offset + query.limit + COUNTED_BEYOND_PAGE;
  const total = (
    builtStatement(db, `SELECT COUNT(*) AS n FROM (SELECT 1 FROM tasks ${clause(where)} LIMIT +@cap)`).get({
      ...values,
      cap,
    }) as { n: number }
  ).n;
  return { total, capped: total >= cap };
}

/** Which columns a page reads, and how a row of them, read as values, becomes a row. */
export interface RowShape<R extends { sort_path: string }> {
  columns: string;
  of: (values: readonly unknown[]) => R;
}
export const WHOLE_ROWS: RowShape<TaskRow> = { columns: COLUMNS, of: (values) => taskRowOf(values) };
export const SUMMARY_ROWS: RowShape<SummaryRow> = { columns: SUMMARY_COLUMNS, of: summaryRowOf };
export const HELD_ROWS: RowShape<HeldRow & { sort_path: string }> = {
  columns: `${HELD_COLUMNS}, sort_path`,
  of: (values) => ({ ...heldRowOf(values), sort_path: values[10] as string }),
};

/** A built statement's rows, read as values from the connection's raw cache. */
const pageRows = <R extends { sort_path: string }>(
  db: Database.Database,
  shape: RowShape<R>,
  sql: string,
  params: Record<string, unknown>,
): R[] => (builtStatement(db, sql, true).all(params) as unknown[][]).map(shape.of);

/**
 * One page. In tree order, each status is read in order from the (status, sort_path) index and
 * the runs are merged, so a page costs its own size per status, never a sort of every match.
 * Other orders (the dashboard's sort menu) sort the matches.
 */
export function readPage<R extends { sort_path: string }>(
  db: Database.Database,
  query: PageQuery,
  shape: RowShape<R>,
): R[] {
  const window = { limit: query.limit, offset: query.offset };
  const treeOrder = query.orderBy === "sort_path";
  if (!treeOrder || query.selective || query.statuses.length === 0) {
    const { where, values } = statusWhere(query);
    const from = query.selective || !treeOrder ? "tasks" : "tasks INDEXED BY tasks_tree";
    return pageRows(
      db,
      shape,
      `SELECT ${shape.columns} FROM ${from} ${clause(where)} ORDER BY ${query.orderBy} LIMIT +@limit OFFSET +@offset`,
      { ...values, ...window },
    );
  }
  const runs = [...new Set(query.statuses)].flatMap((status) =>
    pageRows(
      db,
      shape,
      `SELECT ${shape.columns} FROM tasks INDEXED BY tasks_status_tree ${clause(["status = @status", ...query.where])}
         ORDER BY sort_path LIMIT +@upTo`,
      { ...query.values, status, upTo: query.offset + query.limit },
    ),
  );
  runs.sort((a, b) => (a.sort_path < b.sort_path ? -1 : a.sort_path > b.sort_path ? 1 : 0));
  return runs.slice(query.offset, query.offset + query.limit);
}
