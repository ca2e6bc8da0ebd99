/**
 * At most `size` pieces of work at once; the rest wait their turn, first come first served. A
 * wait ends early when its signal aborts: the work then runs at once with that aborted signal, so
 * a call cancelled while it waited ends the way every cancelled call ends (recorded, nothing
 * started), not in a way of its own.
 */
export class Slots {
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async run<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    // Woken work looks again: work that ran at once on an aborted signal may hold a slot too.
    while (this.busy >= this.size && !signal.aborted) await this.turn(signal);
    this.busy++;
    try {
      return await work();
    } finally {
      this.busy--;
      this.waiting.shift()?.();
    }
  }

  private turn(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        signal.removeEventListener("abort", leave);
        resolve();
      };
      const leave = () => {
        const at = this.waiting.indexOf(wake);
        if (at >= 0) this.waiting.splice(at, 1);
        resolve();
      };
      this.waiting.push(wake);
      signal.addEventListener("abort", leave, { once: true });
    });
  }
}
