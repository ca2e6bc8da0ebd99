import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Session } from "../../src/commands/context.js";
import type { AnyCommand } from "../../src/commands/define.js";
import { COMMANDS_BY_NAME } from "../../src/commands/registry.js";
import { createServer } from "../../src/faces/mcp/server.js";
import { operational } from "../../src/kernel/outcome.js";
import { cairn, cleanEnv, initWorkspace } from "../helpers/workspace.js";

/**
 * The change feed reads the journal when the store says something changed. A read that fails
 * then (the store busy past its timeout, a server restarting) must be tried again: the change
 * that rang is announced late, never only at the next write. The journal read is made to fail
 * in process, since a real store cannot be made to fail one read on cue from outside.
 */
describe("the change feed after a failed journal read", () => {
  let ws: ReturnType<typeof initWorkspace>;
  let session: Session;
  let client: Client;
  const activity = COMMANDS_BY_NAME.get("activity") as AnyCommand;
  const original = activity.handler;
  const updated: string[] = [];

  beforeAll(async () => {
    ws = initWorkspace();
    expect(cairn(ws.dir, ["task", "add", "watched"]).code).toBe(0);
    session = new Session({ cwd: ws.dir, env: cleanEnv() });
    const server = createServer(session, "all");
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: "feed-retry-test", version: "1" });
    client.setNotificationHandler("notifications/resources/updated", (notification) => {
      updated.push(notification.params.uri);
    });
    await client.connect(clientSide);
  });
  afterAll(async () => {
    activity.handler = original;
    await client.close();
    await session.close();
    ws.cleanup();
  });

  it("announces the change once a later read succeeds, without another write", async () => {
    await client.subscribeResource({ uri: "cairn://task/T-1" });
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
