/**
 * bin/cairn.cjs starts V8 with start-up flags (no optimising, a young generation that does not
 * grow) and listens for this event to give V8 its defaults back. A server announces it once its
 * client has initialized: from then on the code that runs is the serving path, called again and
 * again, which optimising pays for. Without the launcher (tests run from source) nobody listens.
 */
export const STARTED_EVENT = "cairn:started";

export function announceStarted(): void {
  (process as NodeJS.EventEmitter).emit(STARTED_EVENT);
}
