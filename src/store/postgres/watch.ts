import type pg from "pg";
import { connect } from "./connection.js";
import { isConnectionError } from "./errors.js";
import type { PgLocation } from "./location.js";

const RETRY_MS = 1_000;

/**
 * "The workspace advanced to event N", pushed by LISTEN/NOTIFY on a connection of its own. The
 * payload is never read: each notification makes this read the journal's head, and listeners read
 * the journal for what changed. On every (re)connect the current head is reported too, so a
 * notification missed while disconnected is not lost.
 */
export class ChangeFeed {
  private readonly listeners = new Set<(head: number) => void>();
  private client: pg.Client | undefined;
  /** The one connection attempt under way: two at once would leave one client nobody ends. */
  private starting: Promise<void> | undefined;
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
      // Resubscribed while an earlier subscription's attempt still connects: that one serves.
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

  private start(): Promise<void> {
    this.starting ??= this.connectAndListen().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async connectAndListen(): Promise<void> {
    try {
      const client = await connect({ location: this.location });
      // Closed while connecting (and perhaps subscribed again since: then `closed` is false again,
      // and this connection is the one that listens).
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
      // The payload is not trusted (anyone who may NOTIFY could send any number): a notification
      // only rings the bell, and the head is read from the journal itself.
      client.on("notification", (message) => {
        if (message.channel === this.channel) void this.readHead(client);
      });
      // Named so an operator (or a fault test) can tell the listener from the working connection.
      await client.query(`SET application_name = 'cairn listen ${this.channel}'; LISTEN ${this.channel}`);
      await this.readHead(client);
    } catch {
      this.schedule();
    }
  }

  private reading = false;
  private readAgain = false;

  /** Read the journal head; bells that ring meanwhile are answered by one more read, not one each. */
  private async readHead(client: pg.Client): Promise<void> {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    try {
      do {
        this.readAgain = false;
        const row = await client.query<{ head: number }>("SELECT coalesce(max(id), 0) AS head FROM events");
        this.advance(Number(row.rows[0]?.head ?? 0));
      } while (this.readAgain && this.client === client);
    } catch (error) {
      // A lost connection is reported by its own events and reconnects; a later bell reads again.
      // One that stopped answering is ended here, so that it is reported and replaced too.
      if (isConnectionError(error)) void client.end().catch(() => {});
    } finally {
      this.reading = false;
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
    // An attempt still connecting ends its own connection once it sees `closed`: wait for that
    // (at most the connect timeout), so that nothing of this feed outlives its close.
    await this.starting;
  }
}
