import { spawn } from "node:child_process";
import { afterEach, beforeEach, expect, it } from "vitest";
import { callTool, connectMcp, INITIALIZE } from "../helpers/mcp.js";
import { CAIRN_BIN, cleanEnv, initWorkspace } from "../helpers/workspace.js";

let ws: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = initWorkspace();
});
afterEach(() => ws.cleanup());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it("stops reading requests while the client does not read the answers, and answers every one once it does", async () => {
  const child = spawn(process.execPath, [CAIRN_BIN, "mcp"], { cwd: ws.dir, env: cleanEnv() });
  try {
    // The client reads nothing yet: every answer stays in the server's stdout.
    child.stdout.pause();
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send(INITIALIZE);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    // Each request is large (a padded `_meta`), its answer small: ~8 MB of requests in all.
    const count = 2_000;
    const padding = "x".repeat(4_000);
    for (let id = 1; id <= count; id++) {
      send({
        jsonrpc: "2.0",
        id,
        method: "resources/read",
        params: { uri: "cairn://board", _meta: { padding } },
      });
    }
    await sleep(4_000);
    // A server that went on reading would have taken all of it (and held every answer in memory);
    // one that waits for its answers to be read leaves most of the requests with the client.
    expect(child.stdin.writableLength).toBeGreaterThan(1_000_000);

    const answered = new Set<number>();
    let buffer = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only ${answered.size} answers`)), 60_000);
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        buffer += chunk;
        for (let newline = buffer.indexOf("\n"); newline !== -1; newline = buffer.indexOf("\n")) {
          const reply = JSON.parse(buffer.slice(0, newline)) as { id?: number; result?: unknown };
          buffer = buffer.slice(newline + 1);
          if (typeof reply.id === "number" && reply.id > 0 && reply.result) answered.add(reply.id);
        }
        if (answered.size === count) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.stdout.resume();
    });
    expect(answered.size).toBe(count);
  } finally {
    child.kill("SIGKILL");
  }
}, 90_000);

it("puts off the change feed while the client does not read, then tells each changed resource once", async () => {
  const child = spawn(process.execPath, [CAIRN_BIN, "mcp"], { cwd: ws.dir, env: cleanEnv() });
  const writer = await connectMcp(ws.dir);
  try {
    const lines: string[] = [];
    let buffer = "";
    let reading = true;
    const waiting = new Map<number, () => void>();
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      for (let newline = buffer.indexOf("\n"); newline !== -1; newline = buffer.indexOf("\n")) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        lines.push(line);
        const { id } = JSON.parse(line) as { id?: number };
        if (typeof id === "number") waiting.get(id)?.();
      }
    });
    let next = 0;
    const request = (method: string, params: Record<string, unknown>) => {
      const id = ++next;
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      return reading ? new Promise<void>((resolve) => waiting.set(id, resolve)) : Promise.resolve();
    };
    child.stdin.write(`${JSON.stringify(INITIALIZE)}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    const call = (name: string, args: Record<string, unknown>) =>
      request("tools/call", { name, arguments: { schema_version: 1, ...args } });
    await call("add_task", { title: "padding", context: "x".repeat(60_000) });
    const briefs: string[] = [];
    for (let n = 2; n <= 61; n++) {
      await call("add_task", { title: `task ${n}` });
      briefs.push(`cairn://task/T-${n}/brief`);
    }
    for (const uri of briefs) await request("resources/subscribe", { uri });

    // The client stops reading, with a megabyte of answers it has not read yet.
    child.stdout.pause();
    reading = false;
    for (let read = 0; read < 16; read++) await request("resources/read", { uri: "cairn://task/T-1" });
    await sleep(500);
    const before = lines.length;
    // Meanwhile another agent writes: a finding is quoted in every brief, so each changes each time.
    for (let finding = 0; finding < 40; finding++) {
      await callTool(writer, "add_note", { kind: "finding", severity: "minor", text: `finding ${finding}` });
      await sleep(100);
    }
    child.stdout.resume();
    await sleep(4_000);

    const told = new Map<string, number>();
    for (const line of lines.slice(before)) {
      const message = JSON.parse(line) as { method?: string; params?: { uri?: string } };
      if (message.method !== "notifications/resources/updated") continue;
      const uri = message.params?.uri as string;
      told.set(uri, (told.get(uri) ?? 0) + 1);
    }
    // Nothing missed, nothing piled up: each brief is told of once or twice (a look under way
    // when the stall began), not once for every look the feed would have made meanwhile.
    expect([...told.keys()].sort()).toEqual([...briefs].sort());
    expect(Math.max(...told.values())).toBeLessThanOrEqual(2);
  } finally {
    child.kill("SIGKILL");
    await writer.close();
  }
}, 90_000);

it("still writes the answers the client has not read when its input ends, then exits", async () => {
  const child = spawn(process.execPath, [CAIRN_BIN, "mcp"], { cwd: ws.dir, env: cleanEnv() });
  try {
    let output = "";
    // Listened to, so node does not drain (and drop) what the pipe holds when the child exits.
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
    // A client that writes its requests, closes its input, and reads only then.
    child.stdout.pause();
    const call = (id: number, name: string, args: Record<string, unknown>) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: { schema_version: 1, ...args } },
    });
    for (const message of [
      INITIALIZE,
      { jsonrpc: "2.0", method: "notifications/initialized" },
      call(2, "add_task", { title: "big", context: "x".repeat(200_000) }),
      call(3, "get_context", { task: "T-1", budget: 250_000 }),
    ])
      child.stdin.write(`${JSON.stringify(message)}\n`);
    child.stdin.end();
    await sleep(1_500);
    child.stdout.resume();
    expect(await closed).toBe(0);
    // The brief is more than the pipe and the reader's buffer hold: exiting at the end of input
    // dropped the rest, and the client read a cut line.
    const last = output.trim().split("\n").at(-1) as string;
    const brief = JSON.parse(last) as { id: number; result: { structuredContent: { brief: string } } };
    expect(brief.id).toBe(3);
    expect(brief.result.structuredContent.brief).toContain("x".repeat(200_000));
  } finally {
    child.kill("SIGKILL");
  }
}, 30_000);
