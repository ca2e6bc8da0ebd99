import type { NewJournalEvent } from "../store.js";
import { encodeText } from "./db.js";

/** Events held back at most this many at a time: a bulk write flushes them in slices. */
const SLICE = 1_000;

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
   * The held events as one simple-query prefix (literals, no parameters, so it can share a round
   * trip with COMMIT), and forget them. The counter is raised first, in one step, so the per-row
   * trigger leaves it alone. Empty when nothing is held.
   */
  drain(literal: (text: string) => string): string {
    if (this.held.length === 0) return "";
    const held = this.held;
    this.held = [];
    const rows = held.map(
      ({ id, event }) =>
        `(${id}, ${[event.at, event.actor, event.action, event.subject, JSON.stringify(event.data)]
          .map((value) => literal(encodeText(value)))
          .join(", ")})`,
    );
    const top = (held[held.length - 1] as { id: number }).id;
    return `SELECT cairn_next('events', ${top}); INSERT INTO events (id, at, actor, action, subject, data) VALUES ${rows.join(", ")}; `;
  }
}
