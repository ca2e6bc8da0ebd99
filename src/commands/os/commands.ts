import { z } from "zod";
import { audit } from "../../domains/audit/record.js";
import { osConfigOf } from "../../domains/os/config.js";
import {
  aliasExpansions,
  gitConfigProblem,
  gitEnv,
  isGit,
  moveOutside,
  repositoryOutside,
} from "../../domains/os/git.js";
import { DEFAULT_CONFIRM, decide } from "../../domains/os/policy.js";
import { checkOsArgs, OS_OUTPUT_CAP, realNameOf, resolveBinary, runOs } from "../../domains/os/run.js";
import { runOutcome, runReply } from "../../kernel/capped-run.js";
import { childEnv } from "../../kernel/child-env.js";
import { refuse } from "../../kernel/outcome.js";
import { defineCommand } from "../define.js";
import { verbatim } from "../field-text.js";

export const osList = defineCommand({
  name: "os list",
  summary: "What this machine's [os] allowlist lets a model run (allow, deny, confirm, pinned tools)",
  effect: "read",
  input: z.object({}),
  output: z.object({
    active: z.boolean(),
    config: z.string(),
    allow: z.array(z.string()),
    deny: z.array(z.string()),
    confirm: z.array(z.string()).describe("never run for a model: a person runs these themselves"),
    tools: z.array(z.object({ bin: z.string(), args: z.array(z.string()), description: z.string() })),
    timeout_seconds: z.number(),
    output_cap_bytes: z.number(),
  }),
  async handler(_input, ctx) {
    const { os, path, active } = osConfigOf(ctx.env);
    return {
      active,
      config: path,
      allow: os.allow,
      deny: os.deny,
      confirm: [...DEFAULT_CONFIRM, ...os.confirm],
      tools: os.tool,
      timeout_seconds: os.timeout_seconds,
      output_cap_bytes: OS_OUTPUT_CAP,
    };
  },
  render: (out) =>
    out.active
      ? [
          `Allowed (${out.config}):`,
          ...out.allow.map((entry) =>
            entry.trim() === "*"
              ? "  * (every binary on PATH)"
              : `  ${entry}${entry.includes(" ") ? " (only)" : " (any arguments)"}`,
          ),
          ...(out.deny.length ? [`Denied: ${out.deny.join(", ")}`] : []),
          `Needs a person (never run for a model): ${out.confirm.length} entries, e.g. sh, rm, env, sudo`,
        ].join("\n")
      : `OS tools are off: ${out.config} has no [os] section with enabled = true and a non-empty allow list.`,
});

export const osRun = defineCommand({
  name: "os run",
  supervises: true,
  summary: "Run an allowlisted binary with arguments (argv, never a shell); refusals are audited too",
  effect: "write",
  audit: "self",
  positional: ["bin", "args"],
  input: z.object({
    bin: z.string().max(4_096).describe("a bare binary name, e.g. git"),
    args: z.array(z.string()).default([]).describe("passed as argv, verbatim"),
  }),
  output: z.object({
    argv: z.array(z.string()),
    exit_code: z.number().nullable(),
    timed_out: z.boolean(),
    error: z.string().nullable(),
    duration_ms: z.number(),
    stdout: z.string(),
    stderr: z.string(),
  }),
  async handler(input, ctx) {
    const { os, path, active } = osConfigOf(ctx.env);
    const refused = (rule: string, reason: string, next: string) => {
      audit(ctx, "notice", "os_refused", { bin: input.bin, args: input.args, rule, reason });
      return refuse("os", `${reason}, by this machine's configuration (${path})`, next);
    };
    if (!active) {
      throw refused(
        "off",
        "OS tools are off",
        "the operator enables [os] with an allow list in the machine's cairn.toml; nothing runs until then",
      );
    }
    const argsProblem = checkOsArgs(input.args);
    if (argsProblem) throw refused("args", argsProblem, "pass fewer or shorter arguments");
    // Binaries inside the project workspace (which agents write) are never looked up on PATH.
    const untrusted = ctx.workspace.kind === "project" ? [ctx.workspace.root] : [];
    const realName = realNameOf(input.bin, ctx.env, untrusted);
    const verdict = decide(os, input.bin, input.args, realName);
    if (verdict.verdict === "refuse") {
      throw refused(
        verdict.rule,
        verdict.reason,
        verdict.rule === "confirm"
          ? "a model can never confirm: tell the user the exact command so a person can run it in their own terminal; os_list (`cairn os list`) shows what runs without confirmation"
          : "os_list (`cairn os list`) shows what this machine allows; do not retry this command",
      );
    }
    // Refused here, where it is audited like every other refusal (runOs would refuse it unaudited).
    if (!resolveBinary(input.bin, ctx.env, untrusted)) {
      audit(ctx, "notice", "os_refused", {
        bin: input.bin,
        args: input.args,
        rule: "not_installed",
        reason: "allowed but not installed on PATH",
      });
      throw refuse(
        "os",
        `\`${input.bin}\` is allowed but not installed on this machine's PATH`,
        "os_list (`cairn os list`) shows what is allowed; install it or pick another",
      );
    }
    // git runs what a repository's configuration and hooks name: those stay off, or it is refused.
    const git = isGit(input.bin, realName);
    const extraEnv = git ? gitEnv(ctx.env, input.args) : undefined;
    const run = await runOs(input.bin, input.args, {
      cwd: ctx.workspace.root,
      env: ctx.env,
      timeoutMs: os.timeout_seconds * 1000,
      signal: ctx.signal,
      untrusted,
      extraEnv,
      // Audited before it runs: a cairn killed outright mid-run (kill -9) records no end.
      onStart: (argv) => audit(ctx, "critical", "os_run_start", { argv }),
      check: git
        ? async (gitPath) => {
            const away = repositoryOutside(input.args, ctx.workspace.root);
            if (away) {
              throw refused(
                "git_outside",
                `\`git ${away.slice(0, 120)}\` needs a person's confirmation: it points git at a folder out of the workspace, where it would read and write`,
                "a model can never confirm: work in the workspace's own repository, or tell the user the exact command; do not retry",
              );
            }
            // `git mv` renames before it checks the destination: judged by where it really lands.
            const movedOutside = (args: readonly string[]) => {
              const moved = moveOutside(args, ctx.workspace.root);
              if (!moved) return;
              throw refused(
                "git_outside",
                `\`git ${moved.slice(0, 120)}\` needs a person's confirmation: it would put a file in a repository's own folder (.git) or out of the workspace`,
                "a model can never confirm: move files within the work tree, or tell the user the exact command; do not retry",
              );
            };
            movedOutside(input.args);
            const aliases = new Map<string, string>();
            const problem = await gitConfigProblem(gitPath, input.args, {
              cwd: ctx.workspace.root,
              env: childEnv(ctx.env, extraEnv),
              signal: ctx.signal,
              aliases,
            });
            if (problem) {
              throw refused(
                "git_config",
                `\`git\` needs a person's confirmation here: the repository ${problem}`,
                "a model can never confirm: tell the user which setting in the repository's git configuration to review; do not retry",
              );
            }
            // An alias (the operator's own `alias.p = push`) is another name for what it expands to.
            for (const expanded of aliasExpansions(input.args, aliases)) {
              movedOutside(expanded);
              const through = decide(os, input.bin, expanded, realName);
              if (through.verdict === "refuse") {
                throw refused(
                  through.rule,
                  `${through.reason} (as \`git ${expanded.slice(0, 6).join(" ").slice(0, 120)}\`, which git's aliases make of this command)`,
                  "os_list (`cairn os list`) shows what this machine allows; do not retry this command",
                );
              }
            }
          }
        : undefined,
    });
    audit(ctx, "critical", "os_run", { argv: run.argv, ...runOutcome(run) });
    return { argv: run.argv, ...runReply(run) };
  },
  render: (out) =>
    `${verbatim(out.stdout)}${out.stderr ? `${out.stdout ? "\n" : ""}${verbatim(out.stderr)}` : ""}${out.exit_code !== 0 ? `\n[${out.argv[0]} exited ${out.exit_code}${out.error ? `: ${out.error}` : ""}]` : ""}`,
});
