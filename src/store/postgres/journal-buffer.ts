import type pg from "pg";
import type { NewJournalEvent } from "../store.js";
import { encodeText, statement } from "./db.js";

/** Events held back at most this many at a time: a bulk write flushes them in slices. */
const SLICE = 1_000;
/** From this many held events on, the counter is raised in one step before they are inserted. */
const RAISE_FROM = 8;
const RAISE = "SELECT cairn_next('events', $1)";
const INSERT = `INSERT INTO events (id, at, actor, action, subject, data)
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])`;

/**
 * The journal appends of one write transaction, held back so that they travel with the next
 * statement or with COMMIT instead of costing a round trip each. Their ids are known at once:
 * the transaction read the events counter right after taking the workspace lock, and under that
 * lock nobody else appends. A statement of the transaction that writes `events` itself (an
 * import) makes the counter unknown again; appends then go to the server one by one, as before.
 * Should a prediction ever be wrong, the insert fails on the key and the whole transaction rolls
 * back: nothing acknowledged is affected.
 */
export class JournalBuffer {
  /** The counter as read by BEGIN (still in flight when the transaction starts). */
  private counter: Promise<number | undefined> | undefined;
  private known = false;
  private last: number | undefined;
  private held: { id: number; event: NewJournalEvent }[] = [];

  /** A new transaction: `counter` resolves to the counter read under the lock (undefined: a read). */
  reset(counter: Promise<number | undefined> | undefined): void {
    this.counter = counter;
    this.known = counter === undefined;
    this.last = undefined;
    this.held = [];
  }

  /** The id this event will have, or undefined when it must be inserted at once. */
  async hold(event: NewJournalEvent): Promise<number | undefined> {
    if (!this.known) {
      this.last = await this.counter;
      this.known = true;
    }
    if (this.last === undefined) return undefined;
    this.last += 1;
    this.held.push({ id: this.last, event });
    return this.last;
  }

  /** After an immediate insert: the counter is known again from its id. */
  appended(id: number): void {
    if (this.held.length === 0) {
      this.last = id;
      this.known = true;
    }
  }

  /** A statement of the transaction wrote to `events` directly. */
  noteStatement(sql: string): void {
    if (/\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+"?events"?[\s(]/i.test(sql)) {
      this.last = undefined;
      this.known = true;
    }
  }

  get pending(): number {
    return this.held.length;
  }

  get full(): boolean {
    return this.held.length >= SLICE;
  }

  /**
   * The held events as prepared statements to send back to back (the connection pipelines, so
   * they share a round trip with whatever follows), and forget them. Past a few rows the
   * counter is raised first, in one step, so the per-row trigger leaves it alone (a counter row
   * rewritten once per event would grow a chain of versions within the transaction).
   */
  drain(): pg.QueryConfig[] {
    if (this.held.length === 0) return [];
    const held = this.held;
    this.held = [];
    const column = (pick: (event: NewJournalEvent) => string) =>
      held.map(({ event }) => encodeText(pick(event)));
    const top = (held[held.length - 1] as { id: number }).id;
    const insert = statement(INSERT, [
      held.map(({ id }) => id),
      column((e) => e.at),
      column((e) => e.actor),
      column((e) => e.action),
      column((e) => e.subject),
      column((e) => JSON.stringify(e.data)),
    ]);
    return held.length > RAISE_FROM ? [statement(RAISE, [top]), insert] : [insert];
  }
}
