import { describe, expect, it } from "vitest";
import { Slots } from "../../src/kernel/slots.js";

describe("slots for calls that start processes", () => {
  it("runs at most its size at once, the rest in the order they came", async () => {
    const slots = new Slots(2);
    const order: string[] = [];
    let live = 0;
    let most = 0;
    const work = (name: string) =>
      slots.run(new AbortController().signal, async () => {
        live++;
        most = Math.max(most, live);
        order.push(name);
        await new Promise((resolve) => setTimeout(resolve, 5));
        live--;
      });
    await Promise.all(["a", "b", "c", "d", "e"].map(work));
    expect(most).toBe(2);
    expect(order).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("ends a wait when its call is cancelled: the work runs at once, with the aborted signal, and the queue goes on", async () => {
    const slots = new Slots(1);
    let release = () => {};
    const holding = slots.run(new AbortController().signal, () => new Promise<void>((r) => (release = r)));
    const cancel = new AbortController();
    const cancelled = slots.run(cancel.signal, async () => cancel.signal.aborted);
    const after = slots.run(new AbortController().signal, async () => "ran");
    cancel.abort();
    expect(await cancelled).toBe(true);
    release();
    await holding;
    expect(await after).toBe("ran");
  });
});
