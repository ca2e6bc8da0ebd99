import { Cron } from "croner";
import { z } from "zod";

/**
 * `agent.toml`, read as dotagent users already write it: the same sections, keys and defaults.
 * Where dotagent accepted nonsense silently (a weekday 7, an hour 25, an expression it never
 * fires), cairn says so at load time.
 */

/**
 * The longest span a schedule may name, in minutes (ten years). Windows, retries and staleness
 * are dates computed from these; a span past what a date can hold (10^12 minutes) made every
 * reader of schedules fail, the daemon and `cairn status` with them, over one agent's file.
 */
const MAX_MINUTES = 10 * 366 * 24 * 60;
const TOO_LONG = `at most ${MAX_MINUTES} minutes (ten years)`;

/** The keys every schedule may set to override the agent's defaults. */
const OVERRIDE_KEYS = [
  "max_retries",
  "retry_backoff_minutes",
  "stale_after_minutes",
  "on_battery",
  "timezone",
] as const;

function validZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export function expressionProblem(expression: string): string | undefined {
  const trimmed = expression.trim();
  if (!trimmed.startsWith("@") && trimmed.split(/\s+/).length !== 5) {
    return `"${trimmed}" is not a 5-field cron expression (minute hour day month weekday)`;
  }
  try {
    const cron = new Cron(trimmed, { paused: true, mode: "5-part" });
    if (cron.nextRun(new Date(0)) === null) return `"${trimmed}" never fires`;
  } catch (error) {
    return `"${trimmed}": ${(error as Error).message.replace(/^CronPattern: /, "")}`;
  }
  return undefined;
}

/**
 * The schemas, built on first use: `cairn status` reads the agent catalog, which most workspaces
 * leave empty, and building these ~170 zod schemas is about 3 ms of such a call.
 */
function buildSchemas() {
  const Minutes = z.number().int().min(0).max(MAX_MINUTES, TOO_LONG);
  const Span = z.number().int().min(1).max(MAX_MINUTES, TOO_LONG);
  const Overrides = {
    max_retries: z.number().int().min(1).max(32).optional(),
    retry_backoff_minutes: z.array(Minutes).optional(),
    stale_after_minutes: Span.optional(),
    on_battery: z.enum(["run", "defer"]).optional(),
    /** IANA zone the windows are read in; the machine's zone when absent. */
    timezone: z
      .string()
      .refine((zone) => validZone(zone), "not an IANA time zone")
      .optional(),
  } satisfies Record<(typeof OVERRIDE_KEYS)[number], z.ZodType>;

  const ScheduleId = z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_.-]+$/, "schedule ids use letters, digits, ., - and _");
  const Args = z.array(z.string()).default([]);

  const CronSchedule = z.object({
    id: ScheduleId,
    type: z.literal("cron"),
    weekdays: z
      .array(z.number().int().min(0, "weekdays run 0 (Sunday) to 6").max(6, "weekdays run 0 (Sunday) to 6"))
      .min(1),
    hours: z.array(z.number().int().min(0, "hours run 0 to 23").max(23, "hours run 0 to 23")).min(1),
    minute: z.number().int().min(0, "minute runs 0 to 59").max(59, "minute runs 0 to 59").default(0),
    args: Args,
    ...Overrides,
  });

  const IntervalSchedule = z.object({
    id: ScheduleId,
    type: z.literal("interval"),
    interval_minutes: z
      .number()
      .int()
      .min(1, "interval_minutes must be at least 1")
      .max(MAX_MINUTES, TOO_LONG),
    args: Args,
    ...Overrides,
  });

  /** A standard 5-field cron expression (or an @nickname), parsed and really run by croner. */
  const ExpressionSchedule = z.object({
    id: ScheduleId,
    type: z.literal("expression"),
    expression: z.string().superRefine((expression, ctx) => {
      const problem = expressionProblem(expression);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    }),
    args: Args,
    ...Overrides,
  });

  const Schedule = z.discriminatedUnion("type", [CronSchedule, IntervalSchedule, ExpressionSchedule]);

  /** Remediation argv: a list is taken as is; a string is split on spaces, honouring quotes. */
  const Remediation = z.union([z.string(), z.array(z.string()).min(1)]);

  const Preflight = z.object({
    /** cairn's own preflight: argv run before the agent; exit 0 lets the run go ahead. */
    command: z.string().min(1).optional(),
    args: Args,
    /** dotagent's plugin preflight (`dotagent-plugin-<name>`); kept so doctor can name it. */
    plugin: z.string().optional(),
    config: z.unknown().optional(),
    events: z.array(z.string()).optional(),
    remediation: Remediation.optional(),
    timeout_seconds: z.number().int().min(1).default(30),
  });

  const Manifest = z.object({
    agent: z.object({
      name: z.string().min(1, "agent.name must not be empty").max(200),
      description: z.string().max(1000).optional(),
      monitor: z.boolean().default(true),
      timeout_seconds: z.number().int().min(1).default(1800),
      version: z.string().optional(),
    }),
    run: z.object({
      command: z.string().min(1, "run.command must not be empty"),
      args: Args,
      working_dir: z.string().optional(),
      protocol: z.string().optional(),
    }),
    env: z
      .object({ inherit: z.boolean().default(true), extra: z.record(z.string(), z.string()).default({}) })
      .default({ inherit: true, extra: {} }),
    defaults: z
      .object({
        max_retries: z.number().int().min(1).max(32).default(3),
        retry_backoff_minutes: z.array(Minutes).default([5, 15, 30]),
        stale_after_minutes: Span.default(120),
      })
      .default({ max_retries: 3, retry_backoff_minutes: [5, 15, 30], stale_after_minutes: 120 }),
    schedules: z.array(Schedule).default([]),
    preflight: z.array(Preflight).default([]),
    cairn: z
      .object({
        identity: z
          .string()
          .regex(/^[a-zA-Z0-9_-]{1,64}$/, "a cairn agent name")
          .optional(),
      })
      .default({}),
  });
  return { Schedule, Preflight, Manifest };
}

let built: ReturnType<typeof buildSchemas> | undefined;
export const manifestSchemas = (): ReturnType<typeof buildSchemas> => {
  built ??= buildSchemas();
  return built;
};

type Schemas = ReturnType<typeof buildSchemas>;
export type Schedule = z.infer<Schemas["Schedule"]>;
export type Preflight = z.infer<Schemas["Preflight"]>;
export type Manifest = z.infer<Schemas["Manifest"]>;

/** Keys cairn reads, by section; `*` marks a table whose keys are the user's own. */
const KNOWN: Record<string, readonly string[]> = {
  agent: ["name", "description", "monitor", "timeout_seconds", "version"],
  run: ["command", "args", "working_dir", "protocol"],
  env: ["inherit", "extra"],
  defaults: ["max_retries", "retry_backoff_minutes", "stale_after_minutes"],
  schedules: [
    "id",
    "type",
    "weekdays",
    "hours",
    "minute",
    "interval_minutes",
    "expression",
    "args",
    ...OVERRIDE_KEYS,
  ],
  preflight: ["command", "args", "plugin", "config", "events", "remediation", "timeout_seconds"],
  cairn: ["identity"],
};

/** dotagent sections cairn reads past without acting on them: kept, and reported by doctor. */
export const FOREIGN_SECTIONS = [
  "on_success",
  "on_failure",
  "notifiers",
  "security",
  "lifecycle",
  "assistant",
  "memory",
] as const;

/** Every key the file holds that cairn does not read, as dotted paths (`schedules[1].max_retry`). */
export function unknownKeys(raw: Record<string, unknown>): { unknown: string[]; foreign: string[] } {
  const unknown: string[] = [];
  const foreign: string[] = [];
  for (const [section, value] of Object.entries(raw)) {
    if ((FOREIGN_SECTIONS as readonly string[]).includes(section)) {
      foreign.push(section);
      continue;
    }
    // Own keys only: `[constructor]` or `[toString]` found Object's members here, and the
    // `includes` they lack threw out of every catalog read (the daemon, `status`, every MCP call).
    const known = Object.hasOwn(KNOWN, section) ? KNOWN[section] : undefined;
    if (!known) {
      unknown.push(section);
      continue;
    }
    const tables = Array.isArray(value) ? value : [value];
    tables.forEach((table, index) => {
      if (table === null || typeof table !== "object") return;
      const where = Array.isArray(value) ? `${section}[${index}]` : section;
      for (const key of Object.keys(table)) if (!known.includes(key)) unknown.push(`${where}.${key}`);
    });
  }
  return { unknown, foreign };
}
