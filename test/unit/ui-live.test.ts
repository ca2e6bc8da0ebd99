import { EventEmitter } from "node:events";
import { renameSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Session } from "../../src/commands/context.js";
import type { AnyCommand } from "../../src/commands/define.js";
import { dispatch } from "../../src/commands/dispatch.js";
import { COMMANDS_BY_NAME } from "../../src/commands/registry.js";
import { LiveHub } from "../../src/faces/ui/live.js";
import { rawExec } from "../helpers/raw-store.js";
import { cleanEnv, initWorkspace } from "../helpers/workspace.js";

/** A stream whose reader reads everything (`reading`) or stopped reading: what it holds unsent. */
class Stream extends EventEmitter {
  writableLength = 0;
  destroyed = false;
  received = "";
  constructor(private readonly reading: boolean) {
    super();
  }
  writeHead() {
    return this;
  }
  write(text: string) {
    this.received += text;
    if (!this.reading) this.writableLength += Buffer.byteLength(text);
    return this.reading;
  }
  destroy() {
    this.destroyed = true;
    this.emit("close");
    return this;
  }
  end() {
    this.emit("close");
  }
}

const until = async (done: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
};

describe("the dashboard's live streams", () => {
  it("drop a reader that stopped reading once it holds more than it may unsent, and keep the others", async () => {
    const ws = initWorkspace();
    const viewer = new Session({ cwd: ws.dir, env: cleanEnv(), readOnly: true });
    const owner = new Session({ cwd: ws.dir, env: cleanEnv() });
    const hub = new LiveHub(viewer, 20, 2_000);
    try {
      const stalled = new Stream(false);
      const reading = new Stream(true);
      await hub.open(stalled as unknown as ServerResponse, undefined);
      await hub.open(reading as unknown as ServerResponse, undefined);
      expect(hub.size).toBe(2);
      // Each change is a frame of some 150 bytes: 40 of them are well past 2,000 unsent.
      const add = COMMANDS_BY_NAME.get("task add") as AnyCommand;
      for (let i = 0; i < 40; i++)
        expect((await dispatch(add, { title: `change ${i}` }, owner)).kind).toBe("ok");
      await until(() => stalled.destroyed && (reading.received.match(/event: change/g) ?? []).length >= 40);
      expect(stalled.destroyed).toBe(true);
      expect(stalled.writableLength).toBeLessThan(2_000 + 1_000);
      expect(reading.destroyed).toBe(false);
      expect((reading.received.match(/event: change/g) ?? []).length).toBe(40);
      expect(hub.size).toBe(1);
    } finally {
      hub.close();
      await viewer.close();
      await owner.close();
      ws.cleanup();
    }
  });

  it("tell every page to reload when more changed between two looks than one look reads", async () => {
    const ws = initWorkspace();
    const viewer = new Session({ cwd: ws.dir, env: cleanEnv(), readOnly: true });
    const hub = new LiveHub(viewer, 20);
    try {
      const reading = new Stream(true);
      await hub.open(reading as unknown as ServerResponse, undefined);
      // 600 events in one commit (an import does as much), past the 500 one look reads.
      await rawExec(
        ws.dir,
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 600) INSERT INTO events (at, actor, action, subject) SELECT '2026-01-01T00:00:00.000Z', 'owner', 'task.note', 'T-1' FROM n",
      );
      // One change through cairn: PostgreSQL's change signal is its own writes' notice.
      const owner = new Session({ cwd: ws.dir, env: cleanEnv() });
      expect(
        (await dispatch(COMMANDS_BY_NAME.get("task add") as AnyCommand, { title: "x" }, owner)).kind,
      ).toBe("ok");
      await owner.close();
      const pulse = COMMANDS_BY_NAME.get("pulse") as AnyCommand;
      const outcome = await dispatch(pulse, {}, viewer);
      const newest = outcome.kind === "ok" ? (outcome.value as { last_event: number }).last_event : 0;
      const lastId = () => Number([...reading.received.matchAll(/^id: (\d+)$/gm)].at(-1)?.[1]);
      await until(() => lastId() >= newest);
      // The page is at the newest event: none of the 600 waits for a change still to come.
      expect(lastId()).toBe(newest);
      expect(reading.received).toContain("event: resync");
    } finally {
      hub.close();
      await viewer.close();
      ws.cleanup();
    }
  });

  it("end a stream opened while the store is out of reach, rather than start it from the first event", async () => {
    const ws = initWorkspace();
    const owner = new Session({ cwd: ws.dir, env: cleanEnv() });
    expect((await dispatch(COMMANDS_BY_NAME.get("task add") as AnyCommand, { title: "x" }, owner)).kind).toBe(
      "ok",
    );
    await owner.close();
    const database = join(ws.dir, ".cairn", "cairn.db");
    renameSync(database, `${database}.away`);
    const viewer = new Session({ cwd: ws.dir, env: cleanEnv(), readOnly: true });
    const hub = new LiveHub(viewer, 20);
    try {
      const early = new Stream(true);
      let ended = false;
      early.on("close", () => {
        ended = true;
      });
      await hub.open(early as unknown as ServerResponse, undefined);
      // No point named: the browser reconnects after `retry` with the one it had.
      expect(early.received).toBe("retry: 2000\n\n");
      expect(ended).toBe(true);
      expect(hub.size).toBe(0);

      renameSync(`${database}.away`, database);
      const later = new Stream(true);
      await hub.open(later as unknown as ServerResponse, undefined);
      expect(later.received).toMatch(/^id: [1-9]\d*\nevent: hello/m);
      expect(hub.size).toBe(1);
    } finally {
      hub.close();
      await viewer.close();
      ws.cleanup();
    }
  });
});
