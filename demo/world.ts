import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { tempDir } from "../src/kernel/temp-dir.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const CAIRN = join(ROOT, "bin", "cairn.mjs");

/** git in the scratch workspace; a failure stops the demo. */
export function git(dir: string, args: string[]): void {
  const run = spawnSync("git", args, { cwd: dir, encoding: "utf8" });
  if (run.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${run.stderr}`);
}

export interface Agent {
  name: string;
  id: string;
  client: Client;
  /** Call a tool and print one line of what came back; returns the structured result. */
  call(tool: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
}

export interface DemoWorld {
  dir: string;
  say(...parts: unknown[]): void;
  /** Run `cairn` as the owner, printing the command line; returns the parsed --json output. */
  cli(args: string[]): Record<string, unknown>;
  /** Register an agent and start its own `cairn mcp` server with its token in the environment. */
  agent(name: string, role: string, grant?: "rw" | "ro"): Promise<Agent>;
  close(): Promise<void>;
}

function env(extra: Record<string, string> = {}): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && key !== "CAIRN_AGENT" && key !== "CAIRN_DIR") base[key] = value;
  }
  return { ...base, ...extra };
}

const preview = (value: unknown, max = 220) => {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
};

export async function openWorld(): Promise<DemoWorld> {
  const dir = tempDir("cairn-demo-");
  const clients: Client[] = [];
  const say = (...parts: unknown[]) => process.stdout.write(`${parts.map(String).join(" ")}\n`);
  const cli = (args: string[]) => {
    say(`$ cairn ${args.join(" ")}`);
    const run = spawnSync(process.execPath, [CAIRN, ...args, "--json"], {
      cwd: dir,
      env: env(),
      encoding: "utf8",
    });
    if (run.status !== 0) throw new Error(`cairn ${args.join(" ")} failed (${run.status}): ${run.stderr}`);
    return JSON.parse(run.stdout) as Record<string, unknown>;
  };
  say("cairn demo — scratch workspace:", dir);
  return {
    dir,
    say,
    cli,
    async agent(name, role, grant = "rw") {
      const added = cli(["agent", "add", name, "--role", role, "--grant", grant]) as {
        agent: { id: string };
        token: string;
      };
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CAIRN, "mcp"],
        cwd: dir,
        env: env({ CAIRN_AGENT: added.token }),
        stderr: "ignore",
      });
      const client = new Client({ name: `demo-${name}`, version: "1.0.0" });
      await client.connect(transport);
      clients.push(client);
      say(`  ${name} (${added.agent.id}) connected to its own cairn mcp server`);
      return {
        name,
        id: added.agent.id,
        client,
        async call(tool, args = {}) {
          const result = await client.callTool({ name: tool, arguments: { schema_version: 1, ...args } });
          const structured = (result.structuredContent ?? {}) as Record<string, unknown>;
          const text = (result.content as { type: string; text?: string }[])[0]?.text ?? "";
          const refused =
            "refused" in structured || Boolean((structured.output as { refused?: unknown } | null)?.refused);
          const verdict = result.isError ? "ERROR" : refused ? "REFUSED" : "ok";
          say(
            `  [${name}] ${tool}(${preview(args, 80)}) → ${verdict}: ${preview(result.isError ? text : structured)}`,
          );
          return structured;
        },
      };
    },
    async close() {
      for (const client of clients) await client.close();
    },
  };
}
