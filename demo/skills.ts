import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { DemoWorld } from "./world.js";

const CAIRN = join(resolve(dirname(fileURLToPath(import.meta.url)), ".."), "bin", "cairn.mjs");

function write(root: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

/**
 * Chapter: what users already keep for their coding agents (a skill, a slash command) served to
 * any MCP client, and the machine's [os] allowlist with one pinned tool; then the refusals that
 * matter (a shell, `env rm`, a path out of a skill) and the audit log that recorded all of it.
 */
export async function chapterSkills(world: DemoWorld): Promise<void> {
  world.say("\n== 6. Skills, slash commands and OS tools, with a tamper-evident audit log");
  // The machine's own folders live in the scratch space too: CAIRN_HOME holds its cairn.toml.
  const home = join(world.dir, "demo-home");
  const machine = join(world.dir, "demo-cairn-home");
  mkdirSync(home, { recursive: true });
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && key !== "CAIRN_AGENT") env[key] = value;
  Object.assign(env, { HOME: home, CAIRN_HOME: machine });
  write(world.dir, {
    ".claude/skills/changelog/SKILL.md":
      "---\nname: changelog\ndescription: Write a changelog entry for the latest commits, in the project's style\n---\n# Changelog\n\n1. Read references/STYLE.md.\n2. Run scripts/last-commits.sh to see what changed.\n3. Write the entry at the top of CHANGELOG.md.\n",
    ".claude/skills/changelog/references/STYLE.md":
      "Entries are one line each, imperative mood, newest first.\n",
    ".claude/skills/changelog/scripts/last-commits.sh": 'echo "3 commits: parser, docs, tests ($# args)"\n',
    ".claude/commands/review.md":
      "---\ndescription: Review a file for bugs\nargument-hint: [file] [focus]\n---\nReview $0 with a focus on $1. Report findings with add_note.\n",
  });
  const cli = (args: string[]) => {
    world.say(`$ cairn ${args.join(" ")}`);
    const run = spawnSync(process.execPath, [CAIRN, ...args, "--json"], {
      cwd: world.dir,
      env,
      encoding: "utf8",
    });
    return JSON.parse(run.stdout || "{}") as Record<string, unknown>;
  };
  const digest = cli(["skill", "digest", "changelog"]) as { digest: string; enable_line: string };
  world.say(
    `  the operator reviews the skill (${digest.digest.slice(0, 23)}…) and enables its scripts on this machine`,
  );
  write(machine, {
    "cairn.toml": `[skills.run]\n${digest.enable_line}\n\n[os]\nenabled = true\nallow = ["git status", "ls", "sh", "env"]\n\n[[os.tool]]\nbin = "git"\nargs = ["status"]\ndescription = "Show the working tree status of this project (read-only)."\n`,
  });
  const client = new Client({ name: "demo-skills", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CAIRN, "mcp"],
      cwd: world.dir,
      env,
      stderr: "ignore",
    }),
  );
  try {
    const names = (await client.listTools()).tools.map((t) => t.name);
    world.say(`  tools from files: ${names.filter((n) => /^(skill|command|os)[-_]/.test(n)).join(", ")}`);
    const call = async (tool: string, args: Record<string, unknown> = {}) => {
      const result = await client.callTool({ name: tool, arguments: { schema_version: 1, ...args } });
      const structured = (result.structuredContent ?? {}) as Record<string, unknown>;
      const text = (result.content as { text?: string }[])[0]?.text ?? "";
      const refused = structured.refused as { reason: string } | undefined;
      const shown = refused ? `REFUSED: ${refused.reason}` : text.replace(/\s+/g, " ").slice(0, 160);
      world.say(`  ${tool}(${JSON.stringify(args).slice(0, 70)}) → ${shown}`);
      return structured;
    };
    await call("skill-changelog");
    await call("skill_read", { skill: "changelog", path: "references/STYLE.md" });
    await call("skill_run", {
      skill: "changelog",
      script: "scripts/last-commits.sh",
      args: ["--since", "v1"],
    });
    await call("command_get", { name: "review", args: "src/parser.ts 'error handling'" });
    await call("os-git-status", { args: ["--short"] });
    world.say("  and what an agent that wants more is told:");
    await call("os_run", { bin: "sh", args: ["-c", "cat ~/.ssh/id_rsa"] });
    await call("os_run", { bin: "env", args: ["rm", "-rf", "."] });
    await call("skill_read", { skill: "changelog", path: "../../../.ssh/id_rsa" });
  } finally {
    await client.close();
  }
  const tail = cli(["audit", "tail", "--lines", "6"]) as {
    entries: { seq: number; severity: string; event: string }[];
  };
  for (const entry of tail.entries) world.say(`    #${entry.seq} ${entry.severity.padEnd(8)} ${entry.event}`);
  const verdict = cli(["audit", "verify"]) as { entries: number };
  world.say(`  every line links to the one before: ${verdict.entries} entries verified from the genesis`);
}
