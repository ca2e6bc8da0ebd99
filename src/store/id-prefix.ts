/**
 * Which rows' ids start with a prefix, as SQL both stores run: a range of the id index rather than
 * a test of every row, since completion asks it at each keystroke. In byte order (SQLite's BINARY,
 * the "C" collation every PostgreSQL text column takes) the ids that start with a prefix are
 * exactly those at or after it and before the prefix with its last character raised by one.
 */
export interface IdMatch {
  /** `WHERE` terms, joined by AND; empty when every row matches. */
  where: string[];
  values: Record<string, unknown>;
}

/**
 * The condition for ids starting with `prefix` (byte for byte) among rows whose status is one of
 * `statuses`, if given; undefined when no row can match: short ids are ASCII, so a prefix that is
 * not matches none, and neither does an empty list of statuses.
 */
export function idsStartingWith(prefix: string, statuses?: readonly string[]): IdMatch | undefined {
  // Printable ASCII only: its last character raised by one is still a single byte.
  if (!/^[\x20-\x7e]*$/.test(prefix) || statuses?.length === 0) return undefined;
  const where: string[] = [];
  const values: Record<string, unknown> = {};
  if (prefix !== "") {
    where.push("id >= @from", "id < @before");
    values.from = prefix;
    values.before = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  }
  if (statuses) {
    where.push(`status IN (${statuses.map((_, i) => `@s${i}`).join(", ")})`);
    statuses.forEach((status, i) => {
      values[`s${i}`] = status;
    });
  }
  return { where, values };
}

export const whereClause = (match: IdMatch) =>
  match.where.length > 0 ? `WHERE ${match.where.join(" AND ")}` : "";
