/**
 * Progress of a long run of child processes (an agent, a verify command), paced the same way for
 * every caller: the latest line at most once a second, and again every few seconds while the run
 * prints nothing, so a caller sees that a silent run is still alive.
 */

/** Where a run's progress goes: elapsed seconds and a line; faces send it on (MCP, a terminal bar). */
export type ProgressSink = (update: { progress: number; message?: string }) => void;

/** Updates at most this often: chatty output must not flood the client. */
const PROGRESS_EVERY_MS = 1_000;
/** A run that prints nothing still reports this often. */
const SILENT_PROGRESS_MS = 5_000;
/** A line shown as progress is cut to this many characters. */
const LINE_CHARS = 200;

export interface RunProgress {
  /** The latest line, read when it is sent: now, or as soon as the pace allows. */
  say(line: string | (() => string)): void;
  /** The run is over: nothing more is sent (its result says the rest). */
  stop(): void;
}

const SILENT: RunProgress = { say() {}, stop() {} };

/**
 * A paced progress reporter, or one that does nothing when no one listens. Progress is the run's
 * elapsed seconds and only ever increases, as MCP requires of a progress token's updates.
 */
export function runProgress(sink: ProgressSink | undefined): RunProgress {
  if (!sink) return SILENT;
  const began = performance.now();
  let sentAt = Number.NEGATIVE_INFINITY;
  let sent = -1;
  let latest: string | (() => string) = "";
  let waiting = false;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const sendIn = (ms: number) => {
    clearTimeout(timer);
    timer = setTimeout(send, ms);
  };
  const send = () => {
    sentAt = performance.now();
    waiting = false;
    sent = Math.max(sent + 1, Math.round((sentAt - began) / 1000));
    sink({ progress: sent, message: typeof latest === "function" ? latest() : latest });
    sendIn(SILENT_PROGRESS_MS);
  };
  sendIn(SILENT_PROGRESS_MS);
  return {
    say(line) {
      if (stopped) return;
      latest = line;
      if (waiting) return;
      const wait = sentAt + PROGRESS_EVERY_MS - performance.now();
      if (wait <= 0) return send();
      waiting = true;
      sendIn(wait);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/** The last line of some output, cut short: what a progress update shows of it. */
export function lastLine(output: string): string {
  const text = output.trimEnd();
  return text.slice(text.lastIndexOf("\n") + 1).slice(0, LINE_CHARS);
}
