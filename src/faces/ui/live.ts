import type { ServerResponse } from "node:http";
import type { Session } from "../../commands/context.js";
import { dispatch } from "../../commands/dispatch.js";
import { COMMANDS_BY_NAME } from "../../commands/registry.js";

/**
 * Live updates as server-sent events. Each message's id is a journal event id, so a browser that
 * reconnects with `Last-Event-ID` is sent exactly what it missed. A watcher polls the store's
 * change signal (the `pulse` command) while anyone listens, and asks the journal what changed
 * only when the signal moved.
 */

export interface LiveEvent {
  id: number;
  at: string;
  actor: string;
  action: string;
  subject: string;
}

/** More missed events than this and the client is told to reload everything instead. */
const REPLAY_LIMIT = 500;
const MAX_CLIENTS = 16;
const PING_MS = 15_000;
/**
 * Bytes a stream may hold unsent before it is dropped. A reader that stopped reading (a suspended
 * laptop's tab, a stalled tunnel) would otherwise grow the server's memory by every change; its
 * browser reconnects with Last-Event-ID and is sent what it missed, or told to reload.
 */
const MAX_UNSENT_BYTES = 1024 * 1024;

async function run<T>(
  session: Session,
  name: string,
  input: Record<string, unknown>,
): Promise<T | undefined> {
  const command = COMMANDS_BY_NAME.get(name);
  if (!command) return undefined;
  const outcome = await dispatch(command, input, session);
  return outcome.kind === "ok" ? (outcome.value as T) : undefined;
}

const frame = (event: LiveEvent) =>
  `id: ${event.id}\nevent: change\ndata: ${JSON.stringify({ id: event.id, at: event.at, actor: event.actor, action: event.action, subject: event.subject })}\n\n`;

export class LiveHub {
  private readonly clients = new Set<ServerResponse>();
  /**
   * Streams past the check but not yet listed: opening one waits on the store, and on PostgreSQL
   * every stream asked for at once passed the check before the first was listed.
   */
  private opening = 0;
  private timer: NodeJS.Timeout | undefined;
  private ping: NodeJS.Timeout | undefined;
  private version: number | undefined;
  private lastEvent = 0;
  private polling = false;

  constructor(
    private readonly session: Session,
    private readonly pollMs: number,
    private readonly maxUnsentBytes = MAX_UNSENT_BYTES,
  ) {}

  /** Write to a listed stream, dropping it once it holds more than it may unsent. */
  private send(client: ServerResponse, text: string): void {
    if (client.destroyed) return;
    client.write(text);
    if (client.writableLength > this.maxUnsentBytes) client.destroy();
  }

  get size(): number {
    return this.clients.size;
  }

  /** Open a stream; replay what the client missed after `after` (its Last-Event-ID). */
  async open(response: ServerResponse, after: number | undefined): Promise<void> {
    if (this.clients.size + this.opening >= MAX_CLIENTS) {
      response.writeHead(503, { "Content-Type": "text/plain; charset=utf-8", "Retry-After": "5" });
      response.end("too many live views open; close a tab\n");
      return;
    }
    this.opening++;
    try {
      await this.replay(response, after);
    } finally {
      this.opening--;
    }
  }

  /** Start the stream, send what was missed and where it starts from, then list it. */
  private async replay(response: ServerResponse, after: number | undefined): Promise<void> {
    response.writeHead(200, {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store",
      Connection: "keep-alive",
    });
    response.write("retry: 2000\n\n");
    let gone = false;
    response.on("close", () => {
      gone = true;
      this.clients.delete(response);
      if (this.clients.size === 0) this.stop();
    });
    const pulse = await run<{ last_event: number }>(this.session, "pulse", {});
    if (!pulse) {
      // The store is out of reach: no point to start from. A stream named 0 would have the
      // browser ask for every event since the first when it came back; ended, the browser
      // reconnects after `retry` with the point it already had.
      response.end();
      return;
    }
    const latest = pulse.last_event ?? 0;
    if (after !== undefined && after < latest) {
      // A frame names who did what to what, never the events' data: 500 missed blocks, each
      // reason 256 KiB, made every reconnecting stream read 128 MB it never sent.
      const missed = await run<{ events: LiveEvent[] }>(this.session, "activity", {
        after,
        limit: REPLAY_LIMIT,
        data: false,
      });
      const events = missed?.events ?? [];
      if (events.length >= REPLAY_LIMIT) {
        response.write(`id: ${latest}\nevent: resync\ndata: {"id":${latest}}\n\n`);
      } else for (const event of events) response.write(frame(event));
    }
    // Name the point this stream starts from: the browser resends it as Last-Event-ID when it
    // reconnects, even if no change arrived in between.
    response.write(`id: ${latest}\nevent: hello\ndata: {"id":${latest}}\n\n`);
    // The page may have gone while the replay was read.
    if (gone) return;
    if (this.clients.size === 0) this.lastEvent = Math.max(this.lastEvent, latest);
    this.clients.add(response);
    this.start();
  }

  private start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.poll(), this.pollMs);
    this.ping = setInterval(() => {
      for (const client of this.clients) this.send(client, ": ping\n\n");
    }, PING_MS);
  }

  private stop(): void {
    clearInterval(this.timer);
    clearInterval(this.ping);
    this.timer = undefined;
    this.ping = undefined;
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const pulse = await run<{ version: number; last_event: number | null }>(this.session, "pulse", {
        known: this.version,
      });
      if (!pulse) return;
      this.version = pulse.version;
      if (pulse.last_event === null || pulse.last_event <= this.lastEvent) return;
      const found = await run<{ events: LiveEvent[] }>(this.session, "activity", {
        after: this.lastEvent,
        limit: REPLAY_LIMIT,
        data: false,
      });
      const events = found?.events ?? [];
      if (events.length >= REPLAY_LIMIT) {
        // More changed than one look reads (an import, a store out of reach a while): the rest
        // would wait for the next change, the pages showing the past meanwhile. As on a
        // reconnect that missed as much, every page is told to reload, from the newest event.
        const latest = Math.max(pulse.last_event, (events.at(-1) as LiveEvent).id);
        for (const client of this.clients)
          this.send(client, `id: ${latest}\nevent: resync\ndata: {"id":${latest}}\n\n`);
        this.lastEvent = latest;
        return;
      }
      for (const event of events) {
        for (const client of this.clients) this.send(client, frame(event));
        this.lastEvent = event.id;
      }
    } finally {
      this.polling = false;
    }
  }

  close(): void {
    this.stop();
    for (const client of this.clients) client.end();
    this.clients.clear();
  }
}
