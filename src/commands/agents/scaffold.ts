import { closeSync, existsSync, fchmodSync, mkdirSync, openSync, renameSync, writeSync } from "node:fs";
import { join } from "node:path";
import { stringify as stringifyToml } from "smol-toml";
import { z } from "zod";
import { isProblem, MANIFEST_FILE, parseManifest } from "../../domains/agents/manifest.js";
import { runToolName } from "../../domains/agents/naming.js";
import { conflict, operational, usageError } from "../../kernel/outcome.js";
import { placeWhole } from "../../kernel/place-whole.js";
import { LONE_SURROGATE, quoteValue } from "../../kernel/text.js";
import { defineCommand } from "../define.js";

/**
 * Control characters but tab and newline (C0, DEL, C1), and a UTF-16 half without its other
 * half: TOML cannot hold the one raw nor the other at all, and a manifest that does not parse
 * breaks every session's tools/list until someone deletes it.
 */
const UNWRITABLE = new RegExp(`(?![\\t\\n])\\p{Cc}|${LONE_SURROGATE.source}`, "u");

function checkWritable(field: string, value: string): void {
  const found = UNWRITABLE.exec(value);
  if (!found) return;
  const code = (found[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0");
  const what = /[\uD800-\uDFFF]/.test(found[0]) ? "a lone UTF-16 surrogate" : "a control character";
  throw usageError(
    `the ${field} ${quoteValue(value)} holds ${what} (U+${code}), which an agent.toml cannot hold`,
    "give text without control characters (tab and newline are kept)",
  );
}

/** The `[agent]` table, written by a TOML serializer: every quote, backslash and newline escaped. */
const agentTable = (name: string, description: string) =>
  stringifyToml({ agent: { name, description } }).trimEnd();

const manifestText = (
  name: string,
  description: string,
) => `# A local agent: cairn runs it as the MCP tool ${runToolName(name)} and on its schedules
# under \`cairn daemon\`. The format is dotagent's agent.toml.

${agentTable(name, description)}
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
# identity = "nightly-bot"        # each run gets a token minted as this agent's child; in a
#                                 # project, once the machine's operator adds the line
#                                 # \`cairn agents digest <agent>\` prints to CAIRN_HOME/cairn.toml
`;

/**
 * The manifest appears whole or not at all (placeWhole), and never over one that appeared
 * meanwhile. Where the filesystem has no hard links, the draft is renamed into place instead.
 */
function placeManifest(manifest: string, text: string): void {
  const exists = () => conflict(`${manifest} already exists`, "edit it, or choose another name");
  try {
    placeWhole(manifest, text, {
      mode: 0o644,
      sync: true,
      withoutLinks: (draft) => {
        if (existsSync(manifest)) throw exists();
        renameSync(draft, manifest);
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw exists();
    throw error;
  }
}

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
    const description = input.description ?? `Say hello (edit ${manifest}).`;
    checkWritable("name", input.name);
    checkWritable("description", description);
    const text = manifestText(input.name, description);
    // Read back by the very reader every session uses: what it cannot load is never written.
    const loaded = parseManifest(text, manifest);
    if (isProblem(loaded)) throw operational(`the scaffolded manifest would not load: ${loaded.reason}`);
    if (loaded.manifest.agent.name !== input.name || loaded.manifest.agent.description !== description) {
      throw operational("the scaffolded manifest would not read back the name and description given");
    }
    mkdirSync(dir, { recursive: true });
    placeManifest(manifest, text);
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
