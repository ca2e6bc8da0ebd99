import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/client";
import { startPostgres } from "../test/helpers/pg-server.js";
import { header, ms, percentile, report } from "./report.js";
import { baseEnv, CAIRN, cairnServer, connect } from "./servers.js";

/**
 * `npm run bench -- feed`: how soon a subscribed `cairn mcp` hears of a write made by another
 * process (write sent → `notifications/resources/updated`), beside the dashboard's SSE stream
 * hearing the same write in the same run, on SQLite and on an embedded PostgreSQL; and how many
 * notifications a burst of 1,000 writes costs a subscriber.
 */

const PROBES = 30;
const QUIET_MS = 250;
const BURST = 1_000;

interface Sse {
  child: ChildProcess;
  /** Resolves when the stream carries an event about `subject`. */
  heard(subject: string): Promise<number>;
  close(): void;
}

/** `cairn ui` and its /events stream, listening as the dashboard's browser would. */
function startSse(dir: string, env: Record<string, string>): Promise<Sse> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CAIRN, "ui", "--port", "0"], { cwd: dir, env: baseEnv(env) });
    let out = "";
    let started = false;
    child.on("exit", (code) => reject(new Error(`cairn ui exited ${code}`)));
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const match = /127\.0\.0\.1:(\d+)(\/[A-Za-z0-9_-]+)\/\?k=([A-Za-z0-9_-]+)/.exec(out);
      if (!match || started) return;
      started = true;
      const port = Number(match[1]);
      const waiting = new Map<string, (at: number) => void>();
      const seen = new Map<string, number>();
      let buffer = "";
      const req = request(
        {
          host: "127.0.0.1",
          port,
          path: `${match[2]}/events`,
          headers: { Host: `127.0.0.1:${port}`, Authorization: `Bearer ${match[3]}` },
        },
        (res) => {
          res.setEncoding("utf8").on("data", (text: string) => {
            const at = performance.now();
            buffer += text;
            for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
              const frame = buffer.slice(0, end);
              buffer = buffer.slice(end + 2);
              const data = /^data: (.*)$/m.exec(frame)?.[1];
              if (!frame.includes("event: change") || !data) continue;
              const subject = (JSON.parse(data) as { subject: string }).subject;
              const waiter = waiting.get(subject);
              if (waiter) waiter(at);
              else seen.set(subject, at);
            }
          });
          resolve({
            child,
            heard: (subject) =>
              new Promise((done) => {
                const at = seen.get(subject);
                if (at !== undefined) done(at);
                else waiting.set(subject, done);
              }),
            close: () => {
              req.destroy();
              child.removeAllListeners("exit");
              child.kill("SIGTERM");
            },
          });
        },
      );
      req.on("error", reject);
      req.end();
    });
  });
}

/** Resolves at the next `resources/updated` for `uri`. */
function updates(client: Client, uri: string) {
  let count = 0;
  let next: ((at: number) => void) | undefined;
  client.setNotificationHandler("notifications/resources/updated", (note) => {
    if (note.params.uri !== uri) return;
    count++;
    next?.(performance.now());
    next = undefined;
  });
  return {
    count: () => count,
    next: () =>
      new Promise<number>((resolve) => {
        next = resolve;
      }),
  };
}

const pause = (msToWait: number) => new Promise((resolve) => setTimeout(resolve, msToWait));

async function benchStore(name: string, env: Record<string, string>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "cairn-bench-feed-"));
  const run = (args: string[]) => {
    const out = spawnSync(process.execPath, [CAIRN, ...args], {
      cwd: dir,
      env: baseEnv(env),
      encoding: "utf8",
    });
    if (out.status !== 0) throw new Error(`cairn ${args.join(" ")}: ${out.stderr}`);
  };
  run(["init"]);
  run(["task", "add", "watched"]);
  const uri = "cairn://task/T-1";
  const subscriber = await connect(cairnServer(dir, [], env));
  const writer = await connect(cairnServer(dir, [], env));
  const sse = await startSse(dir, env);
  try {
    const heard = updates(subscriber.client, uri);
    await subscriber.client.subscribeResource({ uri });
    const mcp: number[] = [];
    const dashboard: number[] = [];
    const writes: number[] = [];
    for (let i = 0; i < PROBES + 3; i++) {
      await pause(QUIET_MS);
      const update = heard.next();
      const sent = performance.now();
      const result = await writer.client.callTool({
        name: "add_note",
        arguments: {
          schema_version: 1,
          kind: "finding",
          scope: "T-1",
          text: `probe ${i}`,
          severity: "minor",
        },
      });
      const acked = performance.now();
      const note = (result.structuredContent as { id: string }).id;
      const [updatedAt, sseAt] = await Promise.all([update, sse.heard(note)]);
      if (i < 3) continue; // warm-up
      writes.push(acked - sent);
      mcp.push(updatedAt - sent);
      dashboard.push(sseAt - sent);
    }
    header(`change feed (${name})`);
    report({
      name: `${name}: write → resources/updated p50`,
      figure: ms(percentile(mcp, 50)),
      baseline: `dashboard SSE ${ms(percentile(dashboard, 50))}, write ${ms(percentile(writes, 50))}`,
    });
    report({
      name: `${name}: write → resources/updated p99`,
      figure: ms(percentile(mcp, 99)),
      baseline: `dashboard SSE ${ms(percentile(dashboard, 99))}`,
    });
    await pause(QUIET_MS);
    const before = heard.count();
    const started = performance.now();
    for (let i = 0; i < BURST; i++) {
      await writer.client.callTool({
        name: "add_note",
        arguments: {
          schema_version: 1,
          kind: "finding",
          scope: "T-1",
          text: `burst ${i}`,
          severity: "minor",
        },
      });
    }
    const elapsed = performance.now() - started;
    await pause(1_000);
    report({
      name: `${name}: notifications for ${BURST} writes`,
      figure: String(heard.count() - before),
      baseline: `${BURST} writes in ${ms(elapsed)}`,
      goal: "bounded by time (≤ 10/s), not by writes",
    });
  } finally {
    sse.close();
    await subscriber.client.close();
    await writer.client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchFeed(): Promise<void> {
  await benchStore("sqlite", {});
  const server = await startPostgres();
  try {
    await benchStore("postgres", { CAIRN_STORE_URL: `${server.url}?schema=feed_${Date.now().toString(36)}` });
  } finally {
    await server.stop();
  }
}
