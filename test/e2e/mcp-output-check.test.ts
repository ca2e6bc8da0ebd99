import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AnyCommand } from "../../src/commands/define.js";
import { COMMANDS_BY_NAME } from "../../src/commands/registry.js";
import { connectInProcess } from "../helpers/in-process-mcp.js";
import { initWorkspace } from "../helpers/workspace.js";

/**
 * A command's output is checked once, by dispatch, and the MCP face hands the SDK a schema that
 * does not check it again. These tests keep that single check honest: a handler that returns a
 * wrong shape must still come back as an error through the MCP face, not as a result. The
 * handler is swapped in-process, since the built server cannot be made to misbehave from outside.
 */
describe("a tool's output through the MCP face", () => {
  let ws: ReturnType<typeof initWorkspace>;
  let mcp: Awaited<ReturnType<typeof connectInProcess>>;
  const whoami = COMMANDS_BY_NAME.get("whoami") as AnyCommand;
  const original = whoami.handler;

  beforeAll(async () => {
    ws = initWorkspace();
    mcp = await connectInProcess(ws.dir);
  });
  afterEach(() => {
    whoami.handler = original;
  });
  afterAll(async () => {
    await mcp.close();
    ws.cleanup();
  });

  const call = () => mcp.client.callTool({ name: "whoami", arguments: { schema_version: 1 } });

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
