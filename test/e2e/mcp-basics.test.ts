import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callTool, connectMcp, INITIALIZE, rawServer } from "../helpers/mcp.js";
import { addAgent, initWorkspace } from "../helpers/workspace.js";

let ws: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = initWorkspace();
});
afterEach(() => ws.cleanup());

describe("cairn mcp through the SDK client", () => {
  it("negotiates 2025-11-25 and lists tools with titles, schemas and truthful annotations", async () => {
    const mcp = await connectMcp(ws.dir);
    try {
      expect(mcp.client.getServerVersion()?.name).toBe("cairn");
      const { tools } = await mcp.client.listTools();
      const names = tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(["whoami", "status", "cli"]));
      for (const tool of tools) {
        expect(tool.title, tool.name).toBeTruthy();
        expect(tool.description?.length, tool.name).toBeGreaterThan(20);
        expect(tool.inputSchema.required, tool.name).toContain("schema_version");
        expect(tool.outputSchema, tool.name).toBeDefined();
        expect(tool.annotations?.openWorldHint, tool.name).toBe(false);
      }
      const whoami = tools.find((tool) => tool.name === "whoami");
      expect(whoami?.annotations).toMatchObject({
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
      });
    } finally {
      await mcp.close();
    }
  });

  it("binds identity at launch: the owner without CAIRN_AGENT, the agent with its token", async () => {
    const bob = addAgent(ws.dir, "bob", "reviewer", ["--grant", "ro"]);
    const owner = await connectMcp(ws.dir);
    const agent = await connectMcp(ws.dir, { env: { CAIRN_AGENT: bob.token } });
    try {
      const ownerView = await callTool(owner, "whoami");
      expect(ownerView.structuredContent).toMatchObject({ id: "owner", is_owner: true, grant: "rw" });
      const bobView = await callTool(agent, "whoami");
      expect(bobView.structuredContent).toMatchObject({
        id: bob.id,
        name: "bob",
        grant: "ro",
        profile: "worker",
      });
      expect(JSON.parse((bobView.content as { text: string }[])[0]?.text ?? "")).toEqual(
        bobView.structuredContent,
      );
    } finally {
      await owner.close();
      await agent.close();
    }
  });

  it("answers a line that is not JSON with -32700 and a null id, and keeps serving", async () => {
    const raw = rawServer(ws.dir);
    try {
      const fault = (await raw.send("this is not json")) as Record<string, unknown>;
      expect(fault).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
      const init = await raw.request(INITIALIZE);
      expect(init.result).toBeDefined();
    } finally {
      await raw.close();
    }
  });
});
