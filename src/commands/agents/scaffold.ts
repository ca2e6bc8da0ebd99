import { closeSync, existsSync, fchmodSync, mkdirSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { MANIFEST_FILE } from "../../domains/agents/manifest.js";
import { runToolName } from "../../domains/agents/naming.js";
import { conflict } from "../../kernel/outcome.js";
import { defineCommand } from "../define.js";

const manifestText = (
  name: string,
  description: string,
) => `# A local agent: cairn runs it as the MCP tool ${runToolName(name)} and on its schedules
# under \`cairn daemon\`. The format is dotagent's agent.toml.

[agent]
name = ${JSON.stringify(name)}
description = ${JSON.stringify(description)}
# monitor = true          # false: never dispatched by the daemon, not in status
# timeout_seconds = 1800  # then TERM, a grace, KILL of the whole process group

[run]
command = "./run.sh"      # argv, never a shell; found on PATH or relative to working_dir
args = []
# working_dir = "."

# [env]
# inherit = true          # false: start from an empty environment
# extra = { LANG = "C.UTF-8" }

# [defaults]
# max_retries = 3                  # dispatches per window, the first included
# retry_backoff_minutes = [5, 15, 30]
# stale_after_minutes = 120

[[schedules]]
id = "hourly"
type = "interval"
interval_minutes = 60

# [[schedules]]
# id = "weekday-morning"
# type = "cron"
# weekdays = [1, 2, 3, 4, 5]      # 0 = Sunday … 6 = Saturday
# hours = [7]
# minute = 30

# [[schedules]]
# id = "nightly"
# type = "expression"
# expression = "15 2 * * *"       # a standard 5-field cron expression

# [[preflight]]
# command = "ping"
# args = ["-c", "1", "example.com"]
# remediation = ["nmcli", "networking", "on"]   # published as remediate-<agent>-1

# [cairn]
# identity = "nightly-bot"        # each run gets a token minted as this agent's child
`;

const SCRIPT = `#!/bin/sh
# $AGENT_NAME, $AGENT_HOME, $AGENT_TMPDIR, $AGENT_SCHEDULE_ID and $AGENT_TRIGGER_SOURCE are set.
echo "hello from $AGENT_NAME ($AGENT_TRIGGER_SOURCE)"
`;

export const agentsNew = defineCommand({
  name: "agents new",
  summary: "Scaffold a local agent in .cairn/agents/NAME (agent.toml and a run.sh to edit)",
  effect: "write",
  positional: ["name"],
  input: z.object({
    name: z
      .string()
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
        "1-64 letters, digits, ., - or _, starting with a letter or digit",
      )
      .refine((name) => !name.includes(".."), "no .. in a name"),
    description: z.string().max(500).optional(),
  }),
  output: z.object({ name: z.string(), dir: z.string(), manifest: z.string(), tool: z.string() }),
  async handler(input, ctx) {
    const dir = join(ctx.workspace.stateDir, "agents", input.name);
    const manifest = join(dir, MANIFEST_FILE);
    if (existsSync(manifest)) throw conflict(`${manifest} already exists`, "edit it, or choose another name");
    mkdirSync(dir, { recursive: true });
    writeFileSync(manifest, manifestText(input.name, input.description ?? `Say hello (edit ${manifest}).`), {
      flag: "wx",
    });
    const script = join(dir, "run.sh");
    // Created, never written through what is there: a link planted in its place (dangling, so
    // it looks absent) would have the script, made executable, put wherever the link points.
    let fd: number | undefined;
    try {
      fd = openSync(script, "wx", 0o755);
      writeSync(fd, SCRIPT);
      fchmodSync(fd, 0o755);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
    return { name: input.name, dir, manifest, tool: runToolName(input.name) };
  },
  render: (out) => `Created ${out.manifest} (tool ${out.tool}). Try: cairn agents run ${out.name}`,
});
