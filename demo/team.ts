import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { startPostgres } from "../test/helpers/pg-server.js";
import type { DemoWorld } from "./world.js";

const CAIRN = join(resolve(dirname(fileURLToPath(import.meta.url)), ".."), "bin", "cairn.mjs");

function env(extra: Record<string, string> = {}): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !["CAIRN_AGENT", "CAIRN_DIR", "CAIRN_STORE_URL"].includes(key))
      base[key] = value;
  }
  return { ...base, ...extra };
}

/**
 * Chapter: one board for a team. Two checkouts in different directories stand for two machines
 * (a laptop and a CI runner); both point at one PostgreSQL schema. Their agents race for the
 * same tasks and each task goes to exactly one; what one agent remembers, the other recalls.
 */
export async function chapterTeam(world: DemoWorld): Promise<void> {
  world.say("\n== 7. A team across machines: one board on PostgreSQL");
  const server = await startPostgres();
  const clients: Client[] = [];
  try {
    const machines = {
      laptop: join(world.dir, "laptop", "repo"),
      runner: join(world.dir, "ci-runner", "repo"),
    };
    const cli = (machine: keyof typeof machines, args: string[]) => {
      world.say(`[${machine}] $ cairn ${args.join(" ")}`);
      const run = spawnSync(process.execPath, [CAIRN, ...args, "--json"], {
        cwd: machines[machine],
        env: env(),
        encoding: "utf8",
      });
      if (run.status !== 0) throw new Error(`cairn ${args.join(" ")} failed: ${run.stderr}`);
      return JSON.parse(run.stdout) as Record<string, unknown>;
    };
    for (const dir of Object.values(machines)) mkdirSync(dir, { recursive: true });
    const url = `${server.url}?schema=team`;
    const made = cli("laptop", ["init", "--store", url]);
    world.say(`  store: ${made.store}`);
    const joined = cli("runner", ["init", "--store", url]);
    world.say(`  joined: ${joined.joined}, same workspace id: ${joined.workspace_id === made.workspace_id}`);
    for (const title of ["Rotate the signing key", "Shard the webhook queue", "Retire the v1 API"])
      cli("laptop", ["task", "add", title]);

    const agentOn = async (machine: keyof typeof machines, name: string) => {
      const added = cli(machine, ["agent", "add", name, "--role", "builder"]) as { token: string };
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [CAIRN, "mcp"],
        cwd: machines[machine],
        env: env({ CAIRN_AGENT: added.token }),
        stderr: "ignore",
      });
      const client = new Client({ name, version: "1.0.0" });
      await client.connect(transport);
      clients.push(client);
      return { name, machine, client };
    };
    const agents = [await agentOn("laptop", "ada"), await agentOn("runner", "lin")];
    world.say("  ada (laptop) and lin (CI runner) both try to claim every task, at the same time:");
    const claims = await Promise.all(
      agents.map(async (agent) => {
        const won: string[] = [];
        for (const task of ["T-1", "T-2", "T-3"]) {
          const result = await agent.client.callTool({
            name: "claim_task",
            arguments: { schema_version: 1, task },
          });
          const content = result.structuredContent as Record<string, unknown> | undefined;
          if (!result.isError && content && !("refused" in content)) won.push(task);
        }
        return `${agent.name} won ${won.join(", ") || "nothing"}`;
      }),
    );
    world.say(`  ${claims.join("; ")} — no task claimed twice`);

    const [ada, lin] = agents as [(typeof agents)[number], (typeof agents)[number]];
    await ada.client.callTool({
      name: "remember",
      arguments: {
        schema_version: 1,
        text: "The signing key lives in the vault under kms/webhooks; rotate it with make rotate-key",
        topics: ["security"],
      },
    });
    world.say("  ada remembered where the signing key lives; lin, on the other machine, asks:");
    const recalled = await lin.client.callTool({
      name: "recall",
      arguments: { schema_version: 1, query: "where is the signing key" },
    });
    const facts = (
      (recalled.structuredContent as { facts?: { text: string; author?: string }[] })?.facts ?? []
    ).slice(0, 1);
    for (const fact of facts) world.say(`  lin recalls: "${fact.text}"`);
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    await server.stop();
  }
}
