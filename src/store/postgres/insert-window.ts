import { ident } from "./db.js";

/** Statements sent before their answers are waited for, and the text they may carry between two waits. */
const WINDOW_STATEMENTS = 1_000;
const WINDOW_CHARACTERS = 8 * 1024 * 1024;

/**
 * Inserts sent on a pipelining connection without waiting for each answer: they travel back to
 * back, a window of them one round trip instead of one each (10,000 rows restored or copied
 * over a 2 ms round trip: 29 to 31 s one by one, 2.3 to 3.6 s this way). Answers arrive in
 * order, so the first failure is the insert that failed; those after it fail only because its
 * transaction did.
 */
export class InsertWindow {
  private sent: Promise<unknown>[] = [];
  private characters = 0;

  /**
   * Before the next insert: once the window is full, its answers, then a look at a stop signal
   * (`pause` throws when the job was stopped).
   */
  async makeRoom(pause?: () => Promise<void>): Promise<void> {
    if (this.sent.length < WINDOW_STATEMENTS && this.characters < WINDOW_CHARACTERS) return;
    await this.answered();
    await pause?.();
  }

  send(insert: Promise<unknown>, values: readonly unknown[]): void {
    // Judged when the window is answered: a failure meanwhile is not an unhandled rejection.
    insert.catch(() => {});
    this.sent.push(insert);
    for (const value of values) this.characters += typeof value === "string" ? value.length : 8;
  }

  /** Every answer so far; the first failure is thrown. */
  async answered(): Promise<void> {
    const answers = await Promise.allSettled(this.sent);
    this.sent = [];
    this.characters = 0;
    const failed = answers.find((answer) => answer.status === "rejected");
    if (failed) throw failed.reason;
  }
}

/**
 * Rows per INSERT when many go in at once (a restore, a store copy): each statement costs the
 * server a parse, a bind and an execute, which the rows of one statement share.
 */
export const ROWS_PER_INSERT = 50;

/**
 * `rows` as the groups each INSERT takes: full groups of ROWS_PER_INSERT, then the rest one row
 * each, so a table's inserts have two texts (prepared once each), not one for every rest length.
 */
export function insertGroups<T>(rows: readonly T[]): T[][] {
  const whole = rows.length - (rows.length % ROWS_PER_INSERT);
  const groups: T[][] = [];
  for (let at = 0; at < whole; at += ROWS_PER_INSERT) groups.push(rows.slice(at, at + ROWS_PER_INSERT));
  for (let at = whole; at < rows.length; at++) groups.push([rows[at] as T]);
  return groups;
}

/** `INSERT INTO t (a, b) VALUES (?, ?), (?, ?)…` for `rows` rows; `placeholder(n)` writes the n-th value's mark. */
export function insertSql(
  table: string,
  columns: readonly string[],
  rows: number,
  placeholder: (index: number) => string = () => "?",
): string {
  const tuples = Array.from(
    { length: rows },
    (_, row) => `(${columns.map((_, column) => placeholder(row * columns.length + column)).join(", ")})`,
  );
  return `INSERT INTO ${ident(table)} (${columns.map(ident).join(", ")}) VALUES ${tuples.join(", ")}`;
}

/**
 * For each table that keeps its rows' order in a hidden `_rowid` (a table without an integer
 * key), the value the next restored or copied row takes: after whatever its counter has handed
 * out. Rows given their `_rowid` raise the counter once a statement; rows left to the counter
 * updated it once each (see counterFunctions), which a transaction of many rows pays dearly.
 */
export async function nextRowids(db: {
  query(sql: string): Promise<{ rows: Record<string, unknown>[] }>;
}): Promise<Map<string, number>> {
  const found = await db.query(
    `SELECT c.table_name AS name, COALESCE(k.last, 0) AS last FROM information_schema.columns c
     LEFT JOIN cairn_counters k ON k.name = c.table_name
     WHERE c.table_schema = current_schema() AND c.column_name = '_rowid'`,
  );
  return new Map(found.rows.map((row) => [String(row.name), Number(row.last) + 1]));
}
