/** One versioned schema change: applied once, in order, and recorded by its name. */
export interface Migration {
  name: string;
  sql: string;
  /**
   * Adds or drops indexes, nothing else: the tables and columns an export holds are as they were,
   * so an export made before it imports after it (see `readsExportsOf`).
   */
  indexOnly?: true;
}
