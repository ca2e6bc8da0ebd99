import { join } from "node:path";
import { z } from "zod";
import { audit } from "../../domains/audit/record.js";
import { enabledRuns, skillsConfigOf } from "../../domains/skills/config.js";
import { discoverSkills, findSkill } from "../../domains/skills/discover.js";
import { DIGEST_BYTES_LIMIT, digestSkill, readPage } from "../../domains/skills/files.js";
import {
  checkArgs,
  checkEnabled,
  commandFor,
  resolveInterpreter,
  runScript,
} from "../../domains/skills/run.js";
import type { LoadedSkill, Skill } from "../../domains/skills/skill.js";
import { renderSkillView, skillView } from "../../domains/skills/view.js";
import { loadConfig } from "../../domains/workspace/config.js";
import { homeWorkspace } from "../../domains/workspace/discover.js";
import { runOutcome, runReply } from "../../kernel/capped-run.js";
import { startFolderCopy } from "../../kernel/folder-copy.js";
import { notFound, operational, RefusedError, refuse } from "../../kernel/outcome.js";
import type { CommandContext } from "../context.js";
import { defineCommand } from "../define.js";
import { verbatim } from "../field-text.js";

const SkillName = z.string().max(256).describe("the skill's folder name, as skill_list shows it");
/**
 * Set by the MCP face's model tools, never by the model (their inputs leave it out): people-only
 * skills (`disable-model-invocation`) are then neither listed nor loadable. People reach them
 * as MCP prompts (`skill prompt`) and on the command line.
 */
const ForModel = z.boolean().default(false).describe("answer as a model sees it: people-only skills hidden");

/** A people-only skill asked for by a model: refused, pointing at the prompt a person picks. */
export function refuseForModel(skill: Skill): never {
  throw refuse(
    "skill",
    `skill ${skill.name} is marked for people only (disable-model-invocation): models do not load it`,
    `a person picks it from the client's prompt menu (prompt skill-${skill.name}); do not load it on your own`,
  );
}

export function skillsOf(ctx: Pick<CommandContext, "workspace" | "env">) {
  return discoverSkills(ctx.workspace, ctx.env);
}

/** The skill by name; `withBody` reads its SKILL.md afresh and whole (to load it). */
export function mustFind(ctx: CommandContext, name: string): Skill;
export function mustFind(ctx: CommandContext, name: string, withBody: true): LoadedSkill;
export function mustFind(ctx: CommandContext, name: string, withBody = false): Skill {
  const catalog = skillsOf(ctx);
  const skill = withBody ? findSkill(catalog, name) : catalog.skills.find((s) => s.name === name);
  if (!skill) {
    const known = catalog.skills
      .filter((s) => s.modelInvocable || ctx.audience !== "model")
      .map((s) => s.name)
      .slice(0, 20);
    throw notFound(
      `no skill named ${JSON.stringify(name.slice(0, 80))}`,
      known.length > 0 ? `skills here: ${known.join(", ")}` : "no skills are installed here",
    );
  }
  // Whichever tool a model goes through (skill_get, skill_read, skill_run, the `cli` tool), it
  // never loads, reads, runs or renders a people-only skill.
  if (ctx.audience === "model" && !skill.modelInvocable) refuseForModel(skill);
  return skill;
}

const FileEntry = z.object({
  path: z.string(),
  size: z.number(),
  binary: z.boolean(),
  runnable: z.boolean(),
  external: z.boolean().optional(),
});

export const SkillViewOutput = z.object({
  name: z.string(),
  origin: z.string(),
  dir: z.string(),
  description: z.string(),
  body: z.string(),
  body_truncated: z.boolean(),
  continue_with: z.string().nullable(),
  inert: z.array(z.string()),
  files: z.array(FileEntry),
  files_truncated: z.boolean(),
  warnings: z.array(z.string()),
});

export const skillList = defineCommand({
  name: "skill list",
  summary: "Skills found here and in your home folders, with what was shadowed or dropped and why",
  effect: "read",
  input: z.object({ for_model: ForModel }),
  output: z.object({
    skills: z.array(
      z.object({
        name: z.string(),
        origin: z.string(),
        dir: z.string(),
        description: z.string(),
        model_invocable: z.boolean(),
        run_enabled: z.boolean(),
        warnings: z.array(z.string()),
      }),
    ),
    shadowed: z.array(
      z.object({
        name: z.string(),
        dir: z.string(),
        origin: z.string(),
        by: z.object({ dir: z.string(), origin: z.string() }),
      }),
    ),
    dropped: z.array(z.object({ dir: z.string(), origin: z.string(), reason: z.string() })),
    max_tools: z.number(),
  }),
  async handler(input, ctx) {
    const config = skillsConfigOf(loadConfig(ctx.workspace.configPath));
    const enabled = enabledRuns(ctx.env);
    const catalog = skillsOf(ctx);
    const forModel = input.for_model || ctx.audience === "model";
    const listed = forModel ? catalog.skills.filter((skill) => skill.modelInvocable) : catalog.skills;
    return {
      skills: listed.map((skill) => ({
        name: skill.name,
        origin: skill.origin,
        dir: skill.dir,
        description: skill.description,
        model_invocable: skill.modelInvocable,
        run_enabled: skill.name in enabled,
        warnings: skill.warnings,
      })),
      shadowed: catalog.shadowed,
      dropped: catalog.dropped,
      max_tools: config.max_tools,
    };
  },
  render: (out) =>
    [
      ...(out.skills.length === 0 ? ["No skills found."] : []),
      ...out.skills.map(
        (s) =>
          `${s.name.padEnd(24)} ${s.origin.padEnd(18)} ${s.description.slice(0, 70)}${s.warnings.length ? `  (${s.warnings.length} warning${s.warnings.length > 1 ? "s" : ""})` : ""}`,
      ),
      ...out.shadowed.map(
        (s) => `shadowed: ${s.name} in ${s.dir} (${s.origin}) by ${s.by.dir} (${s.by.origin})`,
      ),
      ...out.dropped.map((d) => `dropped: ${d.dir} (${d.origin}): ${d.reason}`),
    ].join("\n"),
});

export const skillGet = defineCommand({
  name: "skill get",
  summary: "Load one skill: its instructions (capped) and the index of its files",
  effect: "read",
  positional: ["name"],
  input: z.object({ name: SkillName, for_model: ForModel }),
  output: SkillViewOutput,
  async handler(input, ctx) {
    const skill = mustFind(ctx, input.name, true);
    if (input.for_model && !skill.modelInvocable) refuseForModel(skill);
    return skillView(skill, ctx.workspace.root);
  },
  render: renderSkillView,
});

export const skillRead = defineCommand({
  name: "skill read",
  summary: "One file of a skill, by its path inside the skill (paged; binary files described)",
  effect: "read",
  positional: ["skill", "path"],
  input: z.object({
    skill: SkillName,
    path: z.string().max(4_096).describe("relative to the skill folder, as its index lists it"),
    offset: z.number().int().min(0).optional().describe("byte offset to read from (a page's next_offset)"),
  }),
  output: z.object({
    skill: z.string(),
    path: z.string(),
    size: z.number(),
    sha256: z.string(),
    binary: z.boolean(),
    offset: z.number(),
    text: z.string().nullable(),
    next_offset: z.number().nullable(),
    note: z.string().nullable(),
  }),
  async handler(input, ctx) {
    const skill = mustFind(ctx, input.skill);
    const page = readPage(skill.realDir, input.path, input.offset ?? 0);
    const notes = [
      page.binary
        ? `binary file of ${page.size} bytes: not shown as text`
        : page.next_offset !== null
          ? `page ends at byte ${page.next_offset} of ${page.size}: call again with offset ${page.next_offset}`
          : null,
      page.sha256 === "" ? `over ${DIGEST_BYTES_LIMIT / 1024 / 1024} MiB: not hashed (sha256 empty)` : null,
    ].filter((note) => note !== null);
    const note = notes.length > 0 ? notes.join("; ") : null;
    return { skill: skill.name, path: input.path, ...page, note };
  },
  render: (out) => verbatim(out.text ?? "") + (out.note ? `\n[${out.note}]` : ""),
});

export const skillDigest = defineCommand({
  name: "skill digest",
  summary: "A skill's content digest (every file), and the cairn.toml line that enables its scripts",
  effect: "read",
  positional: ["name"],
  input: z.object({ name: SkillName }),
  output: z.object({
    name: z.string(),
    dir: z.string(),
    digest: z.string(),
    files: z.array(z.object({ path: z.string(), sha256: z.string(), size: z.number() })),
    truncated: z.boolean(),
    enable_line: z.string(),
  }),
  async handler(input, ctx) {
    const skill = mustFind(ctx, input.name);
    const untrusted = ctx.workspace.kind === "project" ? [ctx.workspace.root] : [];
    const digest = digestSkill(skill.realDir, "run", untrusted);
    return {
      name: skill.name,
      dir: skill.realDir,
      ...digest,
      enable_line: `${JSON.stringify(skill.name)} = ${JSON.stringify(digest.digest)}`,
    };
  },
  render: (out) =>
    [
      `${out.name}: ${out.digest} (${out.files.length} files)`,
      ...(out.truncated
        ? [
            "The digest does not cover every file (the skill is over its bounds, or links to a folder the digest passes over or into the project): its scripts do not run whatever cairn.toml says.",
          ]
        : [
            "To let its scripts run, add under [skills.run] in CAIRN_HOME/cairn.toml (the machine's configuration):",
            `  ${out.enable_line}`,
          ]),
    ].join("\n"),
});

export const skillRun = defineCommand({
  name: "skill run",
  supervises: true,
  summary:
    "Run a script from a skill's scripts/ folder (argv, never a shell); only skills the operator enabled",
  effect: "write",
  audit: "self",
  positional: ["skill", "script", "args"],
  input: z.object({
    skill: SkillName,
    script: z.string().max(4_096).describe("e.g. scripts/extract.py"),
    args: z.array(z.string()).default([]).describe("passed as argv, verbatim"),
  }),
  output: z.object({
    skill: z.string(),
    script: z.string(),
    argv: z.array(z.string()),
    exit_code: z.number().nullable(),
    timed_out: z.boolean(),
    error: z.string().nullable(),
    duration_ms: z.number(),
    stdout: z.string(),
    stderr: z.string(),
  }),
  async handler(input, ctx) {
    const record = (severity: "notice" | "critical", event: string, data: Record<string, unknown>) =>
      audit(ctx, severity, event, { skill: input.skill, script: input.script, args: input.args, ...data });
    const untrusted = ctx.workspace.kind === "project" ? [ctx.workspace.root] : [];
    const refusalRecorded = <T>(step: () => T): T => {
      try {
        return step();
      } catch (error) {
        if (error instanceof RefusedError)
          record("notice", "skill_run_refused", { reason: error.refusal.reason });
        throw error;
      }
    };
    const found = refusalRecorded(() => {
      const skill = mustFind(ctx, input.skill);
      checkArgs(input.args);
      return skill;
    });
    // The run starts from a copy of what the digest was checked over, never from the folder.
    const copies = join(homeWorkspace(ctx.env).stateDir, "skill-runs");
    let copy: ReturnType<typeof startFolderCopy>;
    try {
      copy = startFolderCopy(found.realDir, copies, "cairn-skill-run-");
    } catch (error) {
      throw operational(`cannot make the run's copy of the skill in ${copies}: ${(error as Error).message}`);
    }
    try {
      const { skill, digest, argv } = refusalRecorded(() => {
        const digest = checkEnabled(found, enabledRuns(ctx.env), untrusted, copy);
        // Judged on the folder first, for its refusals (a hard link is named as such there, and
        // simply absent from the copy); then taken from the copy, which is what runs.
        commandFor(found, input.script);
        const skill: Skill = { ...found, realDir: copy.dir };
        const { argv } = commandFor(skill, input.script);
        return { skill, digest, argv: [...resolveInterpreter(argv, ctx.env, untrusted), ...input.args] };
      });
      // Audited before it runs: a cairn killed outright mid-run (kill -9) records no end.
      record("notice", "skill_run_start", { dir: found.realDir, copy: copy.dir, digest, argv });
      const run = await runScript(skill, argv, {
        timeoutMs: skillsConfigOf(ctx.config).timeout_seconds * 1000,
        signal: ctx.signal,
        env: ctx.env,
        untrusted,
      });
      record("notice", "skill_run", { dir: found.realDir, digest, argv, ...runOutcome(run) });
      return { skill: skill.name, script: input.script, argv, ...runReply(run) };
    } finally {
      copy.remove();
    }
  },
  render: (out) =>
    `${out.skill} ${out.script}: exit ${out.exit_code}${out.error ? ` (${out.error})` : ""} in ${out.duration_ms} ms\n${verbatim(out.stdout)}${out.stderr ? `\n[stderr]\n${verbatim(out.stderr)}` : ""}`,
});

export const SKILL_COMMANDS = [skillList, skillGet, skillRead, skillDigest, skillRun];
