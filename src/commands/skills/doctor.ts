import { z } from "zod";
import { osConfigOf } from "../../domains/os/config.js";
import { decide } from "../../domains/os/policy.js";
import { realNameOf } from "../../domains/os/run.js";
import { discoverCommands } from "../../domains/prompts/discover.js";
import { defineCommand } from "../define.js";
import { skillsOf } from "./commands.js";

/**
 * Everything about the file-backed skills, commands and OS tools that deserves a person's look:
 * what is shadowed by what, what was dropped and why, warnings on what is served, and OS
 * entries that can never run as written. Nothing is ever shadowed or dropped silently.
 */
export const skillDoctor = defineCommand({
  name: "skill doctor",
  summary: "Shadowed, dropped and doubtful skills, commands and OS tools, each with its file",
  effect: "read",
  input: z.object({}),
  output: z.object({
    ok: z.boolean(),
    findings: z.array(z.object({ kind: z.string(), file: z.string(), message: z.string() })),
  }),
  async handler(_input, ctx) {
    const findings: { kind: string; file: string; message: string }[] = [];
    const skills = skillsOf(ctx);
    for (const s of skills.shadowed)
      findings.push({
        kind: "shadowed",
        file: s.dir,
        message: `skill ${s.name} (${s.origin}) is shadowed by ${s.by.dir} (${s.by.origin})`,
      });
    for (const d of skills.dropped) findings.push({ kind: "dropped", file: d.dir, message: d.reason });
    for (const s of skills.skills)
      for (const w of s.warnings) findings.push({ kind: "warning", file: s.dir, message: w });
    const commands = discoverCommands(ctx.workspace, ctx.env);
    for (const s of commands.shadowed)
      findings.push({ kind: "shadowed", file: s.path, message: `command ${s.name} is shadowed by ${s.by}` });
    for (const d of commands.dropped) findings.push({ kind: "dropped", file: d.path, message: d.reason });
    const { os, path, active } = osConfigOf(ctx.env);
    if (active) {
      if (os.allow.some((e) => e.trim().split(/\s+/)[0] === "*"))
        findings.push({
          kind: "warning",
          file: path,
          message: "[os] allow holds `*`: every binary on PATH may run",
        });
      for (const tool of os.tool) {
        const verdict = decide(
          os,
          tool.bin,
          tool.args,
          realNameOf(tool.bin, ctx.env, ctx.workspace.kind === "project" ? [ctx.workspace.root] : []),
        );
        if (verdict.verdict === "refuse")
          findings.push({
            kind: "warning",
            file: path,
            message: `[[os.tool]] ${[tool.bin, ...tool.args].join(" ")} can never run: ${verdict.reason}`,
          });
      }
    }
    return { ok: findings.every((f) => f.kind === "warning"), findings };
  },
  render: (out) =>
    out.findings.length === 0
      ? "Nothing to report."
      : out.findings.map((f) => `${f.kind.padEnd(9)} ${f.file}: ${f.message}`).join("\n"),
});
