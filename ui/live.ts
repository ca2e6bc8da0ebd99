import { createContext } from "preact";
import { useContext } from "preact/hooks";
import { withBase } from "./base.js";

/**
 * The live connection: an EventSource on /events whose message ids are journal event ids. The
 * browser resends the last id on reconnect, and the server replays what was missed. Views read
 * `revision` and refetch when it moves; the badge reads `state`.
 */

export type LiveState = "connecting" | "live" | "reconnecting" | "offline";

export interface LiveEvent {
  id: number;
  at: string;
  actor: string;
  action: string;
  subject: string;
}

export interface Live {
  state: LiveState;
  revision: number;
  lastEvent: number;
  /** When the connection was last known good (for "offline since"). */
  since: Date | undefined;
  recent: LiveEvent[];
}

export const LiveContext = createContext<Live>({
  state: "connecting",
  revision: 0,
  lastEvent: 0,
  since: undefined,
  recent: [],
});

export const useLive = () => useContext(LiveContext);
export const useLiveRevision = () => useContext(LiveContext).revision;

/** After this many failed reconnects in a row the badge says Offline (EventSource keeps trying). */
const OFFLINE_AFTER = 3;
/** Changes arriving together (a transaction's worth) cause one refetch. */
const SETTLE_MS = 30;

/** A stream the server closed for good (a restart with a new token, a refusal) is retried this late. */
const REOPEN_MS = 5_000;

export function connectLive(onChange: (live: Live) => void): () => void {
  let live: Live = { state: "connecting", revision: 0, lastEvent: 0, since: undefined, recent: [] };
  let failures = 0;
  let timer: number | undefined;
  let reopen: number | undefined;
  let source: EventSource;
  const publish = (next: Partial<Live>) => {
    live = { ...live, ...next };
    onChange(live);
  };
  const bump = () => {
    clearTimeout(timer);
    timer = window.setTimeout(() => publish({ revision: live.revision + 1 }), SETTLE_MS);
  };
  const open = () => {
    // The browser resends the last id itself on reconnects; a new stream names it in the query.
    source = new EventSource(withBase(live.lastEvent ? `/events?after=${live.lastEvent}` : "/events"));
    source.addEventListener("open", () => {
      failures = 0;
      publish({ state: "live", since: new Date(), revision: live.revision + 1 });
    });
    source.addEventListener("error", () => {
      failures++;
      const closed = source.readyState === EventSource.CLOSED;
      publish({ state: closed || failures >= OFFLINE_AFTER ? "offline" : "reconnecting" });
      if (closed) reopen = window.setTimeout(open, REOPEN_MS);
    });
    source.addEventListener("change", (message) => {
      const event = JSON.parse((message as MessageEvent<string>).data) as LiveEvent;
      if (event.id <= live.lastEvent) return;
      live = {
        ...live,
        lastEvent: event.id,
        recent: [event, ...live.recent].slice(0, 50),
        since: new Date(),
      };
      bump();
    });
    source.addEventListener("hello", (message) => {
      const { id } = JSON.parse((message as MessageEvent<string>).data) as { id: number };
      if (id > live.lastEvent) publish({ lastEvent: id });
    });
    // Too much was missed to send one by one: every view refetches, and the page is at the newest.
    source.addEventListener("resync", (message) => {
      const { id } = JSON.parse((message as MessageEvent<string>).data) as { id: number };
      if (id > live.lastEvent) live = { ...live, lastEvent: id };
      bump();
    });
  };
  open();
  return () => {
    clearTimeout(reopen);
    source.close();
  };
}
