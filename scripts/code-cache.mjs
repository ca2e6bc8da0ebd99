// Record the V8 code caches bin/cairn.cjs starts from: one run of each face (a CLI `status`, and
// an MCP session of initialize → tools/list → whoami), each writing the bytecode it compiled.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const BIN = join(process.cwd(), "bin", "cairn.cjs");

function environment(record) {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith("CAIRN_")) delete env[name];
  return record ? { ...env, CAIRN_RECORD_CODE_CACHE: "1" } : env;
}

function run(args, cwd, record) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: environment(record),
    encoding: "utf8",
  });
  if (result.status !== 0) throw new Error(`cairn ${args.join(" ")}: ${result.stderr}`);
}

/** One MCP session over stdio, as a client would open it. */
function mcpSession(cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "mcp"], { cwd, env: environment(true), stdio: "pipe" });
    const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
    let buffered = "";
    child.stdout.on("data", (chunk) => {
      buffered += chunk;
      if (buffered.includes('"id":3')) child.stdin.end();
    });
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`cairn mcp exited ${code}`))));
    send({
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "build", version: "1" },
      },
    });
    send({ method: "notifications/initialized" });
    send({ id: 2, method: "tools/list" });
    send({ id: 3, method: "tools/call", params: { name: "whoami", arguments: { schema_version: 1 } } });
  });
}

export async function recordCodeCaches() {
  const workspace = mkdtempSync(join(tmpdir(), "cairn-code-cache-"));
  try {
    run(["init"], workspace, false);
    run(["status"], workspace, true);
    await mcpSession(workspace);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
