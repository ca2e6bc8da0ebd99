import { spawn } from "node:child_process";
import { afterEach, beforeEach, expect, it } from "vitest";
import { INITIALIZE } from "../helpers/mcp.js";
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
