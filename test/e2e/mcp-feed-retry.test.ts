import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyCommand } from "../../src/commands/define.js";
import { COMMANDS_BY_NAME } from "../../src/commands/registry.js";
import { operational } from "../../src/kernel/outcome.js";
import { connectInProcess } from "../helpers/in-process-mcp.js";
import { cairn, initWorkspace } from "../helpers/workspace.js";

/**
 * The change feed reads the journal when the store says something changed. A read that fails
 * then (the store busy past its timeout, a server restarting) must be tried again: the change
 * that rang is announced late, never only at the next write. The journal read is made to fail
 * in process, since a real store cannot be made to fail one read on cue from outside.
 */
describe("the change feed after a failed journal read", () => {
  let ws: ReturnType<typeof initWorkspace>;
  let mcp: Awaited<ReturnType<typeof connectInProcess>>;
  const activity = COMMANDS_BY_NAME.get("activity") as AnyCommand;
  const original = activity.handler;
  const updated: string[] = [];

  beforeAll(async () => {
    ws = initWorkspace();
    expect(cairn(ws.dir, ["task", "add", "watched"]).code).toBe(0);
    mcp = await connectInProcess(ws.dir, { profile: "all" });
    mcp.client.setNotificationHandler("notifications/resources/updated", (notification) => {
      updated.push(notification.params.uri);
    });
  });
  afterAll(async () => {
    activity.handler = original;
    await mcp.close();
    ws.cleanup();
  });

  it("announces the change once a later read succeeds, without another write", async () => {
    await mcp.client.subscribeResource({ uri: "cairn://task/T-1" });
    let failed = 0;
    activity.handler = async () => {
      failed++;
      // Two failures in a row: the second retry waits longer than the first, and still comes.
      if (failed === 2) activity.handler = original;
      throw operational("the store is busy");
    };
    // Another process changes the task: the feed hears it and its journal reads fail twice.
    expect(cairn(ws.dir, ["task", "criterion", "T-1", "--text", "seen by the subscriber"]).code).toBe(0);
    const deadline = Date.now() + 10_000;
    while (!updated.includes("cairn://task/T-1") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(failed).toBe(2);
    expect(updated).toEqual(["cairn://task/T-1"]);
  });
});
