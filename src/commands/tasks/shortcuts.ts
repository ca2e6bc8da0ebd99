import { z } from "zod";
import { parseParams } from "../../domains/tasks/criteria.js";
import { addShortcut, listShortcuts, runShortcut } from "../../domains/tasks/shortcuts.js";
import { EXIT_CODES } from "../../kernel/outcome.js";
import { SHORTCUT_EFFECTS, type ShortcutRecord } from "../../store/tasks.js";
import { defineCommand } from "../define.js";
import { verbatim } from "../field-text.js";

/** Shortcuts: named command templates, defined in cairn.toml or by agents, run through the guard. */

const Shortcut = z.object({
  name: z.string(),
  argv: z.array(z.string()),
  effect: z.enum(SHORTCUT_EFFECTS),
  roles: z.array(z.string()),
  summary: z.string(),
  source: z.enum(["config", "store"]),
  added_by: z.string(),
  version: z.number(),
});
const shortcutView = <T extends ShortcutRecord>(s: T) => ({
  name: s.name,
  argv: s.argv,
  effect: s.effect,
  roles: s.roles,
  summary: s.summary,
  source: s.source,
  added_by: s.addedBy,
  version: s.version,
});

export const shortcutAdd = defineCommand({
  name: "shortcut add",
  summary: "Add a named command template ({{param}} placeholders; run as argv, never via a shell)",
  effect: "write",
  positional: ["name"],
  input: z.object({
    name: z.string(),
    argv: z.array(z.string()).describe("the command, one --argv per word"),
    effect: z
      .enum(SHORTCUT_EFFECTS)
      .describe("none never runs; read added by an agent runs as write: read-only agents may not run it"),
    role: z.array(z.string()).optional().describe("roles allowed to run it (default all)"),
    summary: z.string().optional(),
  }),
  output: Shortcut,
  async handler(input, ctx) {
    const added = await addShortcut(
      ctx.store,
      ctx.config,
      ctx.actor,
      {
        name: input.name,
        argv: input.argv,
        effect: input.effect,
        roles: input.role ?? [],
        summary: input.summary ?? "",
      },
      ctx.now(),
    );
    return shortcutView(added);
  },
  render: (out) => `Shortcut ${out.name} v${out.version} (${out.effect}): ${out.argv.join(" ")}`,
});

/** Shortcuts a `shortcut list` shows by default, and at most. */
const SHORTCUTS_PAGE = 50;
const SHORTCUTS_PAGE_MAX = 200;

export const shortcutList = defineCommand({
  name: "shortcut list",
  summary: "Shortcuts from cairn.toml and `shortcut add`, with use counts from the journal, a page at a time",
  effect: "read",
  input: z.object({
    limit: z.number().int().min(1).max(SHORTCUTS_PAGE_MAX).optional().describe(`default ${SHORTCUTS_PAGE}`),
    offset: z.number().int().min(0).optional(),
  }),
  output: z.object({
    shortcuts: z.array(Shortcut.extend({ uses: z.number() })),
    total: z.number(),
    next_offset: z.number().nullable(),
  }),
  async handler(input, ctx) {
    const offset = input.offset ?? 0;
    const { shortcuts, total } = await listShortcuts(ctx.store, ctx.config, {
      limit: input.limit ?? SHORTCUTS_PAGE,
      offset,
    });
    return {
      shortcuts: shortcuts.map((s) => ({ ...shortcutView(s), uses: s.uses })),
      total,
      next_offset: offset + shortcuts.length < total ? offset + shortcuts.length : null,
    };
  },
  render: (out) =>
    out.total === 0
      ? "No shortcuts."
      : [
          ...out.shortcuts.map(
            (s) =>
              `${s.name.padEnd(16)} ${s.effect.padEnd(11)} ${String(s.uses).padStart(4)} uses  ${s.argv.join(" ")}`,
          ),
          ...(out.next_offset !== null || out.shortcuts.length < out.total
            ? [
                `(${out.shortcuts.length} of ${out.total}${out.next_offset !== null ? `; next: --offset ${out.next_offset}` : ""})`,
              ]
            : []),
        ].join("\n"),
});

export const shortcutRun = defineCommand({
  name: "shortcut run",
  supervises: true,
  summary: "Run a shortcut through the guard (destructive needs --confirm); the run is recorded",
  effect: "write",
  // The shortcut's own declared effect decides, through the guard, inside the handler.
  effectAtMost: "destructive",
  allowReadOnly: true,
  positional: ["name"],
  flagHelp: { task: "the task the run is recorded on (T-12)" },
  input: z.object({
    name: z.string(),
    params: z.array(z.string()).optional().describe("NAME=VALUE"),
    task: z.string().optional(),
    confirm: z.boolean().optional().describe("for destructive ones"),
  }),
  output: z.object({
    name: z.string(),
    exit_code: z.number().nullable(),
    error: z.string().nullable(),
    duration_ms: z.number(),
    output_tail: z.string(),
    uses: z.number(),
  }),
  async handler(input, ctx) {
    const run = await runShortcut(
      ctx.store,
      ctx.config,
      ctx.actor,
      ctx.workspace.root,
      {
        name: input.name,
        params: parseParams(input.params),
        confirm: input.confirm === true,
        task: input.task,
        cwd: ctx.cwd,
      },
      ctx.now,
      { signal: ctx.signal, progress: ctx.progress, askPerson: ctx.askPerson },
    );
    const { evidence } = run;
    return {
      name: run.name,
      exit_code: evidence.exit_code,
      error: evidence.error,
      duration_ms: evidence.duration_ms,
      output_tail: evidence.output_tail.slice(-2_000),
      uses: run.uses,
    };
  },
  // A command that failed (exited non-zero, could not start, timed out) fails the call, as a
  // failed check does: its run is still recorded, and --json prints the same object.
  exitCode: (out) => (out.exit_code === 0 && out.error === null ? EXIT_CODES.ok : EXIT_CODES.operational),
  render: (out) =>
    `${out.name}: exit ${out.exit_code}${out.error ? ` (${out.error})` : ""} in ${out.duration_ms} ms\n${verbatim(out.output_tail)}`,
});

export const SHORTCUT_COMMANDS = [shortcutAdd, shortcutList, shortcutRun];
