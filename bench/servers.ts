import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { tempDir } from "../src/kernel/temp-dir.js";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
// The package's `cairn` entry (bin/cairn.mjs only loads it).
export const CAIRN = join(ROOT, "bin", "cairn.cjs");

/** A server to measure: how to start it, and the one cheap call that proves it answers. */
export interface ServerUnderTest {
  label: string;
  args: string[];
  cwd: string;
  env?: Record<string, string>;
  call: { name: string; arguments: Record<string, unknown> };
}

export function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== "CAIRN_AGENT" && key !== "CAIRN_DIR") env[key] = value;
  }
  return { ...env, ...extra };
}

export function cairnServer(
  workspace: string,
  args: string[] = [],
  env: Record<string, string> = {},
): ServerUnderTest {
  return {
    label: "cairn mcp",
    args: [CAIRN, "mcp", ...args],
    cwd: workspace,
    env,
    call: { name: "whoami", arguments: { schema_version: 1 } },
  };
}

export function minimalServer(): ServerUnderTest {
  return {
    label: "minimal SDK v2 server",
    args: [join(ROOT, "bench", "fixtures", "minimal-server.mjs")],
    cwd: ROOT,
    call: { name: "whoami", arguments: { schema_version: 1 } },
  };
}

export function memoryServer(): ServerUnderTest {
  const dir = tempDir("cairn-bench-memory-");
  return {
    label: "@modelcontextprotocol/server-memory",
    args: [join(ROOT, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js")],
    cwd: ROOT,
    env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") },
    call: { name: "read_graph", arguments: {} },
  };
}

export async function connect(server: ServerUnderTest): Promise<{ client: Client; pid: number | null }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: server.args,
    cwd: server.cwd,
    env: baseEnv(server.env),
    stderr: "ignore",
  });
  const client = new Client({ name: "cairn-bench", version: "1.0.0" });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

/** Spawn → initialize → tools/list → one call → exit, wall clock. */
export async function coldStart(server: ServerUnderTest): Promise<number> {
  const started = performance.now();
  const { client } = await connect(server);
  await client.listTools();
  await client.callTool(server.call);
  await client.close();
  return performance.now() - started;
}
