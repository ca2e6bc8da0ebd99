import type pg from "pg";
import { connect } from "./connection.js";
import type { PgLocation } from "./location.js";

const RETRY_MS = 1_000;

/**
 * "The workspace advanced to event N", pushed by LISTEN/NOTIFY on a connection of its own. The
 * payload is only that number: listeners read the journal for what changed. On every (re)connect
 * the current head is reported too, so a notification missed while disconnected is not lost.
 */
export class ChangeFeed {
  private readonly listeners = new Set<(head: number) => void>();
  private client: pg.Client | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private head = 0;

  constructor(
    private readonly location: PgLocation,
    private readonly channel: string,
  ) {}

  /** The highest journal event announced so far (0 before the first connection). */
  get latest(): number {
    return this.head;
  }

  subscribe(listener: (head: number) => void): () => void {
    this.listeners.add(listener);
    if (this.listeners.size === 1) {
      this.closed = false;
      void this.start();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) void this.close();
    };
  }

  private advance(head: number): void {
    if (!(head > this.head)) return;
    this.head = head;
    for (const listener of this.listeners) listener(head);
  }

  private async start(): Promise<void> {
    try {
      const client = await connect({ location: this.location });
      if (this.closed) {
        await client.end();
        return;
      }
      this.client = client;
      const lost = () => {
        if (this.client !== client) return;
        this.client = undefined;
        this.schedule();
      };
      client.on("error", lost);
      client.on("end", lost);
      client.on("notification", (message) => {
        if (message.channel === this.channel) this.advance(Number(message.payload));
      });
      // Named so an operator (or a fault test) can tell the listener from the working connection.
      await client.query(`SET application_name = 'cairn listen ${this.channel}'; LISTEN ${this.channel}`);
      const row = await client.query<{ head: number }>("SELECT coalesce(max(id), 0) AS head FROM events");
      this.advance(Number(row.rows[0]?.head ?? 0));
    } catch {
      this.schedule();
    }
  }

  private schedule(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.start();
    }, RETRY_MS);
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = undefined;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}
