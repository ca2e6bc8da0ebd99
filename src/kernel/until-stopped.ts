import { onProcessStop } from "./child.js";

/** The abort reason work gets when its process is stopping: an agent run then ends interrupted, not cancelled. */
export const STOPPING = "the supervisor is stopping";

/**
 * The abort reason of a cancel cairn made itself for a cause the run's record keeps (its caller
 * was retired while it ran). A person's Ctrl-C or a client's MCP cancel carries none: a client's
 * reason is its own text, never written into a record as cairn's.
 */
export class StopCause extends Error {}

/** Why `signal` was aborted, when cairn aborted it with a cause to record. */
export const stopCauseOf = (signal: AbortSignal | undefined): string | undefined =>
  signal?.aborted && signal.reason instanceof StopCause ? signal.reason.message : undefined;

/**
 * A cancel of one's own that also follows the caller's `cancel` (aborted with its reason, at once
 * if it already is): work can then be stopped by either. `release` stops following once the work
 * is over, so a long-lived caller's signal does not keep a listener per call.
 */
export function followingCancel(cancel: AbortSignal | undefined): {
  own: AbortController;
  release: () => void;
} {
  const own = new AbortController();
  const forward = () => own.abort(cancel?.reason);
  if (cancel?.aborted) forward();
  else cancel?.addEventListener("abort", forward, { once: true });
  return { own, release: () => cancel?.removeEventListener("abort", forward) };
}

/**
 * Work's own stop: the caller's cancel, or this process stopped by a signal (SIGTERM, a server
 * whose client left), which aborts `work`'s signal with STOPPING. The process waits (a grace) for
 * the work to end that way, so what it ran is killed by its own cancel path and its end recorded
 * (a shortcut's run, an agent run interrupted, the call's audit line) before the process exits.
 */
export async function untilStopped<T>(
  cancel: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const { own: stopping, release } = followingCancel(cancel);
  let ended = () => {};
  const over = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const unhook = onProcessStop(() => {
    stopping.abort(STOPPING);
    return over;
  });
  try {
    return await work(stopping.signal);
  } finally {
    unhook();
    release();
    ended();
  }
}
