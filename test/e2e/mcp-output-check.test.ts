import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { Session } from "../../src/commands/context.js";
import type { AnyCommand } from "../../src/commands/define.js";
import { COMMANDS_BY_NAME } from "../../src/commands/registry.js";
import { createServer } from "../../src/faces/mcp/server.js";
import { cleanEnv, initWorkspace } from "../helpers/workspace.js";

/**
 * A command's output is checked once, by dispatch, and the MCP face hands the SDK a schema that
 * does not check it again. These tests keep that single check honest: a handler that returns a
 * wrong shape must still come back as an error through the MCP face, not as a result. The
 * handler is swapped in-process, since the built server cannot be made to misbehave from outside.
 */
describe("a tool's output through the MCP face", () => {
  let ws: ReturnType<typeof initWorkspace>;
  let session: Session;
  let client: Client;
  const whoami = COMMANDS_BY_NAME.get("whoami") as AnyCommand;
  const original = whoami.handler;

  beforeAll(async () => {
    ws = initWorkspace();
    session = new Session({ cwd: ws.dir, env: cleanEnv() });
    const server = createServer(session, (await session.context()).profile);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: "output-check-test", version: "1" });
    await client.connect(clientSide);
  });
  afterEach(() => {
    whoami.handler = original;
  });
  afterAll(async () => {
    await client.close();
    await session.close();
    ws.cleanup();
  });

  const call = () => client.callTool({ name: "whoami", arguments: { schema_version: 1 } });

  it("reports a handler's malformed output as an error naming the broken field", async () => {
    const good = await call();
    expect(good.isError).toBeFalsy();
    whoami.handler = async (input: never, ctx: never) => ({
      ...((await original(input, ctx)) as Record<string, unknown>),
      grant: "everything",
    });
    const bad = await call();
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toBeUndefined();
    expect(JSON.stringify(bad.content)).toMatch(/whoami produced output that breaks its schema: grant/);
  });

  it("reports a handler that returns nothing as an error too", async () => {
    whoami.handler = async () => undefined;
    const bad = await call();
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toMatch(/breaks its schema/);
  });

  it("serves the checked value: fields the schema does not declare never reach the client", async () => {
    whoami.handler = async (input: never, ctx: never) => ({
      ...((await original(input, ctx)) as Record<string, unknown>),
      secret: "not part of the output",
    });
    const result = await call();
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).not.toHaveProperty("secret");
    expect(result.structuredContent).toMatchObject({ is_owner: true });
    expect(JSON.stringify(result.content)).not.toContain("not part of the output");
  });
});
