import { appendFileSync, chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DemoWorld } from "./world.js";

function agent(world: DemoWorld, name: string, toml: string, script: string): void {
  const dir = join(world.dir, ".cairn", "agents", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "agent.toml"), toml);
  writeFileSync(join(dir, "run.sh"), script);
  chmodSync(join(dir, "run.sh"), 0o755);
}

/** Chapter: three local agents as MCP tools, one daemon tick, and a status that tells the truth. */
export async function chapterAgents(world: DemoWorld): Promise<void> {
  world.say("\n== 5. Local agents: manifests become tools, the daemon runs their schedules");
  agent(
    world,
    "report",
    '[agent]\nname = "report"\ndescription = "Summarise the day: prints a short report."\n[run]\ncommand = "./run.sh"\n[[schedules]]\nid = "weekday-morning"\ntype = "cron"\nweekdays = [1, 2, 3, 4, 5]\nhours = [7]\nminute = 30\n',
    '#!/bin/sh\necho "collecting ($AGENT_TRIGGER_SOURCE)"; sleep 1.2; echo "3 tasks done, 1 blocked"\n',
  );
  agent(
    world,
    "flaky",
    '[agent]\nname = "flaky"\n[run]\ncommand = "./run.sh"\n[defaults]\nmax_retries = 2\n[[schedules]]\nid = "nightly"\ntype = "expression"\nexpression = "15 2 * * *"\n',
    '#!/bin/sh\necho "cannot reach the build server" >&2; exit 2\n',
  );
  agent(
    world,
    "pulse",
    '[agent]\nname = "pulse"\n[run]\ncommand = "./run.sh"\n[[schedules]]\nid = "every-30m"\ntype = "interval"\ninterval_minutes = 30\n',
    '#!/bin/sh\necho "pulse ok at $(date -u +%H:%M)"\n',
  );
  appendFileSync(
    join(world.dir, ".cairn", "cairn.toml"),
    '\n[roles.ops]\nsummary = "Runs the machine"\nprofile = "operator"\n',
  );
  world.say(
    "  three agent.toml files in .cairn/agents (report: cron, flaky: a 5-field expression, pulse: interval)",
  );
  const ops = await world.agent("ops", "ops");
  const { tools } = await ops.client.listTools();
  world.say(
    `  the operator's catalog lists ${tools
      .filter((t) => t.name.startsWith("run-"))
      .map((t) => t.name)
      .join(", ")}`,
  );

  const updates: string[] = [];
  const report = await ops.client.callTool(
    { name: "run-report", arguments: { schema_version: 1 } },
    { onprogress: (update) => updates.push(`${update.progress}s "${update.message ?? ""}"`) },
  );
  world.say(
    `  [ops] run-report → progress ${updates.join(", ")}; result: ${JSON.stringify((report.content as { text: string }[])[0]?.text)}`,
  );
  const flaky = await ops.client.callTool({ name: "run-flaky", arguments: { schema_version: 1 } });
  world.say(
    `  [ops] run-flaky → isError=${flaky.isError}: ${JSON.stringify((flaky.content as { text: string }[])[0]?.text.split("\nnext")[0])}`,
  );
  await ops.call("run-pulse");

  world.say("  one daemon tick: the interval agent is due at once (no first manual run needed)");
  const tick = world.cli(["daemon", "--once"]) as {
    dispatched: { agent: string; schedule: string }[];
    next_event_at: string;
  };
  world.say(
    `  dispatched ${tick.dispatched.map((d) => `${d.agent}/${d.schedule}`).join(", ") || "nothing"}; next event ${tick.next_event_at}`,
  );

  const status = (await ops.client.callTool({ name: "agents_status", arguments: { schema_version: 1 } }))
    .structuredContent as {
    schedules: { agent: string; schedule: string; state: string; reason: string }[];
    triggered: { agent: string; trigger: string; status: string }[];
  };
  world.say("  agents_status, honestly (triggered runs never count as a scheduled window):");
  for (const row of status.schedules)
    world.say(`    ${`${row.agent}/${row.schedule}`.padEnd(24)} ${row.state.padEnd(9)} ${row.reason}`);
  for (const run of status.triggered)
    world.say(`    triggered ${run.agent} via ${run.trigger}: ${run.status}`);
}
