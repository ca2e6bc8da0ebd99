import { spawn } from "node:child_process";
import { Client, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterEach, beforeEach } from "vitest";
import { CAIRN_BIN, cleanEnv, initWorkspace } from "./workspace.js";

export interface McpHandle {
  client: Client;
  stderr: () => string;
  close: () => Promise<void>;
}

/**
 * The person at a client that declared form elicitation: answers each `elicitation/create`.
 * `bare` declares it the way clients did before elicitation had modes (`elicitation: {}`).
 */
export interface PersonAtClient {
  answer: (request: ElicitRequest["params"]) => ElicitResult | Promise<ElicitResult>;
  bare?: boolean;
}

/** A person who gives `reply` to every question, and the questions they were asked, in order. */
export function personAnswering(reply: ElicitResult, bare = false) {
  const asked: ElicitRequest["params"][] = [];
  const person: PersonAtClient = {
    bare,
    answer: (request) => {
      asked.push(request);
      return reply;
    },
  };
  return { asked, person };
}

/** Spawn the built `cairn mcp` and connect the SDK's own client to it over stdio. */
export async function connectMcp(
  cwd: string,
  options: { env?: Record<string, string | undefined>; args?: string[]; person?: PersonAtClient } = {},
): Promise<McpHandle> {
  const env = cleanEnv(options.env) as Record<string, string>;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CAIRN_BIN, "mcp", ...(options.args ?? [])],
    cwd,
    env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const { person } = options;
  const client = new Client(
    { name: "cairn-test", version: "1.0.0" },
    person ? { capabilities: { elicitation: person.bare ? {} : { form: {} } } } : undefined,
  );
  if (person) client.setRequestHandler("elicitation/create", (request) => person.answer(request.params));
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** Call a tool and return its structured result (or the raw result when there is none). */
export async function callTool(handle: McpHandle, name: string, args: Record<string, unknown> = {}) {
  return handle.client.callTool({ name, arguments: { schema_version: 1, ...args } });
}

export interface RawServer {
  /** Send one raw line (no newline needed) and wait for the next line the server prints. */
  send(line: string): Promise<unknown>;
  /** Send a line that gets no reply (a notification). */
  notify(line: string): void;
  /** Send a JSON-RPC request object and wait for the response with its id. */
  request(message: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<number | null>;
  /**
   * Send `text` as the very last bytes of input, no line break after it, and end the input;
   * resolves once the server has exited, with its exit code and every line it printed since.
   */
  endWith(text: string): Promise<{ code: number | null; lines: string[] }>;
  /** Send the server a signal; resolves with its exit code once it has exited. */
  kill(signal: NodeJS.Signals): Promise<number | null>;
  stderr: () => string;
}

/** Drive `cairn mcp` by hand, byte for byte: for protocol faults the SDK client cannot send. */
export function rawServer(
  cwd: string,
  env: Record<string, string | undefined> = {},
  as?: { uid: number; gid: number },
  bin: string = CAIRN_BIN,
): RawServer {
  const child = spawn(process.execPath, [bin, "mcp"], { cwd, env: cleanEnv(env), ...as });
  let buffer = "";
  let stderr = "";
  const waiting: { resolve: (line: string) => void; reject: (error: Error) => void }[] = [];
  const lines: string[] = [];
  let exited: Error | undefined;
  // A server that dies (before initialize, or at any point) fails the waiting test at once.
  child.on("exit", (code, signal) => {
    exited = new Error(`cairn mcp exited (${signal ?? code}) before replying; stderr: ${stderr}`);
    for (const waiter of waiting.splice(0)) waiter.reject(exited);
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    for (let newline = buffer.indexOf("\n"); newline !== -1; newline = buffer.indexOf("\n")) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      const waiter = waiting.shift();
      if (waiter) waiter.resolve(line);
      else lines.push(line);
    }
  });
  const nextLine = () =>
    new Promise<string>((resolve, reject) => {
      const queued = lines.shift();
      if (queued !== undefined) return resolve(queued);
      if (exited) return reject(exited);
      const timer = setTimeout(() => reject(new Error(`no reply from cairn mcp; stderr: ${stderr}`)), 15_000);
      waiting.push({
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
    });
  const write = (line: string) => child.stdin.write(`${line}\n`);
  return {
    async send(line) {
      write(line);
      return JSON.parse(await nextLine());
    },
    notify(line) {
      write(line);
    },
    async request(message) {
      write(JSON.stringify(message));
      for (;;) {
        const reply = JSON.parse(await nextLine()) as Record<string, unknown>;
        if (reply.id === message.id) return reply;
      }
    },
    close() {
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.on("close", (code) => resolve(code));
        child.stdin.end();
      });
    },
    endWith(text) {
      return new Promise((resolve) => {
        child.on("close", (code) =>
          resolve({ code, lines: [...lines.splice(0), ...(buffer ? [buffer] : [])] }),
        );
        child.stdin.end(text);
      });
    },
    kill(signal) {
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.on("close", (code) => resolve(code));
        child.kill(signal);
      });
    },
    stderr: () => stderr,
  };
}

/**
 * Initialize `server` and send it one tools/call (id 1) without waiting for the result: the
 * call is under way when this resolves, for tests that stop or cancel it mid-run.
 */
export async function startToolCall(
  server: RawServer,
  name: string,
  args: Record<string, unknown>,
): Promise<void> {
  await server.request(INITIALIZE);
  server.notify(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  server.notify(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: { schema_version: 1, ...args } },
    }),
  );
}

export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

/**
 * A workspace made before each test of the file and removed after it, with the servers the test
 * put in `open` closed first. `ws` is one object whose `dir` changes from test to test.
 */
export function workspaceEachTest(): { ws: { dir: string; cleanup: () => void }; open: McpHandle[] } {
  const ws = { dir: "", cleanup: () => {} };
  const open: McpHandle[] = [];
  beforeEach(() => {
    Object.assign(ws, initWorkspace());
  });
  afterEach(async () => {
    for (const handle of open.splice(0)) await handle.close();
    ws.cleanup();
  });
  return { ws, open };
}
