import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { CatalogError, type CatalogSource } from "../../src/commands/catalog.js";
import { connectInProcess } from "../helpers/in-process-mcp.js";
import { addAgent, initWorkspace } from "../helpers/workspace.js";

/**
 * The catalog plumbing with a stand-in source: each `<name>.tool` file in a folder is a tool
 * wrapping `remember`; a file whose first line is not a name breaks the catalog.
 */
function fakeSource(folder: string): CatalogSource {
  return {
    async build() {
      if (!existsSync(folder)) return { tools: [], warnings: [] };
      const tools = readdirSync(folder)
        .filter((file) => file.endsWith(".tool"))
        .sort()
        .map((file) => {
          const [name, description = ""] = readFileSync(join(folder, file), "utf8").split("\n");
          if (!name || !/^[a-z-]+$/.test(name))
            throw new CatalogError(join(folder, file), "first line is no name");
          return {
            name,
            title: name,
            description,
            input: z.object({ text: z.string().describe("the fact") }),
            command: "remember",
            commandInput: (args: Record<string, unknown>) => ({ text: args.text, topics: ["fake"] }),
            text: (output: Record<string, unknown>) => `remembered as ${output.id}`,
          };
        });
      return { tools, warnings: [] };
    },
    watched: () => [folder],
  };
}

function connect(
  dir: string,
  env: Record<string, string | undefined> = {},
  source: CatalogSource = fakeSource(join(dir, "tools")),
) {
  return connectInProcess(dir, { env, catalogs: [source] });
}

describe("file-backed tools in the MCP face", () => {
  let ws: ReturnType<typeof initWorkspace>;
  let tools: string;
  let mcp: Awaited<ReturnType<typeof connect>>;

  beforeAll(async () => {
    ws = initWorkspace();
    tools = join(ws.dir, "tools");
    mkdirSync(tools);
    writeFileSync(join(tools, "a.tool"), "note-fact\nRemember a fact through a file-backed tool.");
    // A file-backed tool may not take a hand-kept tool's name.
    writeFileSync(join(tools, "b.tool"), "status\nShadow the status tool.");
    mcp = await connect(ws.dir);
  });
  afterAll(async () => {
    await mcp.close();
    ws.cleanup();
  });

  it("lists file-backed tools after the hand-kept ones, with their schemas and annotations", async () => {
    const { tools: listed } = await mcp.client.listTools();
    const names = listed.map((tool) => tool.name);
    expect(names).toContain("whoami");
    expect(names.filter((name) => name === "status")).toHaveLength(1);
    const fake = listed.find((tool) => tool.name === "note-fact");
    expect(fake?.description).toBe("Remember a fact through a file-backed tool.");
    expect(fake?.inputSchema.required).toEqual(["text", "schema_version"]);
    expect(fake?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(fake?.outputSchema).toBeDefined();
  });

  it("dispatches a call to its command, with the tool's own text and the command's output", async () => {
    const result = await mcp.client.callTool({
      name: "note-fact",
      arguments: { schema_version: 1, text: "x" },
    });
    expect(result.isError).toBeFalsy();
    const id = (result.structuredContent as { id: string }).id;
    expect(result.content).toEqual([{ type: "text", text: `remembered as ${id}` }]);
    const bad = await mcp.client.callTool({ name: "note-fact", arguments: { schema_version: 1, text: 5 } });
    expect(bad.isError).toBe(true);
    await expect(mcp.client.callTool({ name: "no-such-tool", arguments: {} })).rejects.toThrow(/not found/);
  });

  it("refuses a read-only caller through the guard, as a normal result", async () => {
    const { token } = addAgent(ws.dir, "reader", "reviewer", ["--grant", "ro"]);
    const ro = await connect(ws.dir, { CAIRN_AGENT: token });
    try {
      const result = await ro.client.callTool({
        name: "note-fact",
        arguments: { schema_version: 1, text: "y" },
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toHaveProperty("refused");
    } finally {
      await ro.close();
    }
  });

  it("resolves calls against the last build while nothing changed on disk; a new name or a change rebuilds", async () => {
    const folder = join(ws.dir, "counted");
    mkdirSync(folder);
    writeFileSync(join(folder, "a.tool"), "counted-fact\nRemember a fact, counting catalog builds.");
    const inner = fakeSource(folder);
    let builds = 0;
    const counting: CatalogSource = {
      ...inner,
      build: (ctx, profile) => {
        builds++;
        return inner.build(ctx, profile);
      },
    };
    const own = await connect(ws.dir, {}, counting);
    try {
      const call = (name: string) =>
        own.client.callTool({ name, arguments: { schema_version: 1, text: "counted" } });
      await own.client.listTools();
      const before = builds;
      for (let i = 0; i < 5; i++) expect((await call("counted-fact")).isError).toBeFalsy();
      // At most the one rebuild a call makes if the watcher armed after the list; never one per call.
      expect(builds - before).toBeLessThanOrEqual(1);
      // A name the last build lacks is looked for afresh: a tool added a moment ago answers.
      writeFileSync(join(folder, "b.tool"), "added-fact\nA tool added while the server runs.");
      expect((await call("added-fact")).isError).toBeFalsy();
      // A broken file seen by the watcher is never hidden by the tools built before it.
      const changed = new Promise<void>((resolve) =>
        own.client.setNotificationHandler("notifications/tools/list_changed", () => resolve()),
      );
      writeFileSync(join(folder, "c.tool"), "!!!\n");
      await changed;
      await expect(call("counted-fact")).rejects.toThrow(/c\.tool/);
    } finally {
      await own.close();
    }
  });

  it("announces a change on disk, and answers a broken file with an error naming it", async () => {
    const changed = new Promise<void>((resolve) =>
      mcp.client.setNotificationHandler("notifications/tools/list_changed", () => resolve()),
    );
    writeFileSync(join(tools, "c.tool"), "!!!\n");
    await changed;
    await expect(mcp.client.listTools()).rejects.toThrow(/c\.tool: first line is no name/);
    await expect(
      mcp.client.callTool({ name: "note-fact", arguments: { schema_version: 1, text: "z" } }),
    ).rejects.toThrow(/c\.tool/);
    // Hand-kept tools still answer while the catalog is broken.
    const who = await mcp.client.callTool({ name: "whoami", arguments: { schema_version: 1 } });
    expect(who.isError).toBeFalsy();
    rmSync(join(tools, "c.tool"));
    expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toContain("note-fact");
  });
});

describe("a watched folder that never settles", () => {
  it("still announces a change to the catalog while a file beside it is rewritten every 50 ms", async () => {
    const ws = initWorkspace();
    const tools = join(ws.dir, "tools");
    mkdirSync(tools);
    writeFileSync(join(tools, "a.tool"), "note-fact\nRemember a fact.");
    const mcp = await connect(ws.dir);
    // A scratch file some program keeps rewriting in the watched folder: no tool, no change to the list.
    let writing = true;
    const scribbler = (async () => {
      for (let n = 0; writing; n++) {
        writeFileSync(join(tools, "scratch.txt"), String(n));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();
    try {
      await mcp.client.listTools();
      await new Promise((resolve) => setTimeout(resolve, 500));
      const changed = new Promise<string>((resolve) =>
        mcp.client.setNotificationHandler("notifications/tools/list_changed", () => resolve("announced")),
      );
      writeFileSync(join(tools, "d.tool"), "another-fact\nRemember another fact.");
      const timeout = new Promise<string>((resolve) => setTimeout(() => resolve("never announced"), 5_000));
      expect(await Promise.race([changed, timeout])).toBe("announced");
    } finally {
      writing = false;
      await scribbler;
      await mcp.close();
      ws.cleanup();
    }
  });
});
