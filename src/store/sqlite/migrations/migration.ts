/** One versioned schema change: applied once, in order, and recorded by its name. */
export interface Migration {
  name: string;
  sql: string;
}
