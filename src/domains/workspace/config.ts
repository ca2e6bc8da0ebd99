import { statSync } from "node:fs";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { usageError } from "../../kernel/outcome.js";
import { readRegularFile } from "../../kernel/regular-file.js";
import { readsAsShortId } from "../../kernel/short-id.js";
import { isRacy, StampCache, stampOf } from "../../kernel/stamp-cache.js";
import { holdsPassword, redactUrlToEnd } from "../../store/postgres/location.js";

export const PROFILES = ["worker", "planner", "operator", "all"] as const;
export type Profile = (typeof PROFILES)[number];

/**
 * A shortcut's name here, as `shortcut add` takes one (tasks/shortcuts.ts): starting with a letter
 * or digit, since one named "-x" reads as an option to `shortcut run` and every other verb.
 */
const NAME = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/;

/**
 * Roles no agent or table may take: `owner` is the workspace owner's own, and `human` is where a
 * question no role covers is routed. An agent of role human answered every question meant for a
 * person, and a `[roles.human]` table took that route over.
 */
export const RESERVED_ROLES: readonly string[] = ["owner", "human"];
export const isReservedRole = (role: string) => RESERVED_ROLES.includes(role.toLowerCase());

/**
 * The longest claim lease: a hundred years. Every sweep and status dates a cutoff that many
 * minutes back, and a date past JavaScript's range (8.64e15 ms from 1970) cannot be written.
 */
export const MAX_LEASE_MINUTES = 100 * 365 * 24 * 60;

/**
 * A role and a shortcut are built the first time a cairn.toml declares one (zod.lazy): most
 * calls read a file that declares none, and these are a third of the configuration's schemas.
 */
export const RoleConfig = z.lazy(() =>
  z
    .object({
      summary: z.string().default(""),
      instructions: z.string().default(""),
      scope: z.array(z.string()).default([]),
      out_of_scope: z.array(z.string()).default([]),
      shortcuts: z.array(z.string()).default([]),
      grant: z.enum(["rw", "ro"]).default("rw"),
      wip_cap: z.number().int().positive().optional(),
      escalate_to: z.string().optional(),
      profile: z.enum(PROFILES).optional(),
      /** Local agents whose `run-<agent>` tools this role's worker and planner sessions are served. */
      agents: z.array(z.string()).default([]),
      /** Roles an agent of this role may give its children; its own role is always allowed. */
      child_roles: z.array(z.string()).default([]),
      /** May change a frozen goal's contract, freeze runs and approve evaluators, like the owner. */
      planning: z.boolean().default(false),
    })
    .strict(),
);
export type RoleConfig = z.infer<typeof RoleConfig>;

/** A named command template; `{{param}}` placeholders are filled per run, never through a shell. */
export const ShortcutConfig = z.lazy(() =>
  z
    .object({
      argv: z.array(z.string()).min(1),
      effect: z.enum(["read", "write", "destructive", "none"]).default("none"),
      roles: z.array(z.string()).default([]),
      summary: z.string().default(""),
    })
    .strict(),
);
export type ShortcutConfig = z.infer<typeof ShortcutConfig>;

/**
 * `[store]`: a shared PostgreSQL server instead of the embedded SQLite file. The URL never holds
 * a password (PGPASSWORD or ~/.pgpass supply it); `schema` names this workspace on that server.
 */
export const StoreConfig = z.object({
  url: z
    .string()
    .refine((url) => !holdsPassword(url), {
      message: "must not hold a password: set PGPASSWORD or use ~/.pgpass",
    })
    .optional(),
  schema: z.string().optional(),
});

/**
 * `cairn.toml`. Sections this build does not know are kept and ignored, so an older cairn can
 * read a newer workspace's configuration. Inside the sections that set policy (a role, a
 * shortcut, claims, the definition of done, verify) a key it does not know is an error: a
 * misspelt `grant`, `roles` or `shortcuts` would otherwise drop the rule it was meant to set,
 * leaving the role writable, the shortcut open to every role, or `task finish` ungated.
 */
/**
 * A table keyed by name (roles, shortcuts) holding only its own names: `roles["constructor"]` or
 * `shortcuts["toString"]` is nothing, not a function inherited from Object, which would pass
 * for a declared role (a question routed to it) or shortcut (whose run fails on its missing fields).
 */
function ownNames<T>(table: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, table);
}

/** A role's name, in cairn.toml and in `role add`: one rule, so both faces say the same. */
export const RoleName = z
  .string()
  // Starts with a letter or digit, as an agent's role must (identity/agents.ts): a role named
  // "-x" could be declared here and never be named to `--role`, where it reads as an option.
  .regex(
    /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/,
    "role names use 1-64 letters, digits, - and _, starting with a letter or digit",
  )
  .refine((name) => !isReservedRole(name), `${RESERVED_ROLES.join(" and ")} are reserved role names`);

export const WorkspaceConfig = z
  .object({
    workspace: z.object({ name: z.string().optional() }).default({}),
    roles: z.record(RoleName, RoleConfig).default({}).transform(ownNames),
    claims: z
      .object({
        lease_minutes: z
          .number()
          .positive()
          .max(MAX_LEASE_MINUTES, `at most ${MAX_LEASE_MINUTES} minutes (100 years)`)
          .default(30),
      })
      .strict()
      .default({ lease_minutes: 30 }),
    done: z
      .object({ shortcuts: z.array(z.string()).default([]), note_kinds: z.array(z.string()).default([]) })
      .strict()
      .default({ shortcuts: [], note_kinds: [] }),
    verify: z
      .object({ timeout_seconds: z.number().positive().default(600) })
      .strict()
      .default({ timeout_seconds: 600 }),
    shortcuts: z
      .record(
        z
          .string()
          .regex(NAME, "shortcut names use 1-64 letters, digits, - and _, starting with a letter or digit")
          .refine((name) => !readsAsShortId(name), "a shortcut name must not read as an id (T-4, 7)"),
        ShortcutConfig,
      )
      .default({})
      .transform(ownNames),
    store: StoreConfig.optional(),
  })
  .catchall(z.unknown());
export type WorkspaceConfig = z.infer<typeof WorkspaceConfig>;

/** Text from the file as an error quotes it: a hostile line or key is cut, never echoed whole. */
const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;

export function parseConfig(text: string, path: string): WorkspaceConfig {
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (error) {
    // The parser's message quotes the offending lines (a code frame): each is cut, and a store
    // URL's password on them masked first (a URL holding one is refused, but it is in the file),
    // from the URL to the end of the line: unparsed, its password may hold spaces or quotes.
    const message = (error as Error).message
      .split("\n")
      .slice(0, 8)
      .map((line) => clip(redactUrlToEnd(line), 160))
      .join("\n");
    throw usageError(`${path}: not valid TOML: ${message}`, "fix the file and retry");
  }
  const parsed = WorkspaceConfig.safeParse(raw);
  if (!parsed.success) {
    // A table named against the rules (a role "-x") is reported by zod as "Invalid key in
    // record"; the rule it broke is in the issue's own issues.
    const keyIssueMessage = (issue: z.core.$ZodIssue): string =>
      issue.code === "invalid_key" && issue.issues[0] ? issue.issues[0].message : issue.message;
    const issues = parsed.error.issues
      .slice(0, 5)
      .map(
        (issue) =>
          `${issue.path.map((part) => clip(String(part), 64)).join(".")}: ${clip(keyIssueMessage(issue), 200)}`,
      )
      .join("; ");
    const more = parsed.error.issues.length > 5 ? ` (and ${parsed.error.issues.length - 5} more)` : "";
    throw usageError(`${path}: ${issues}${more}`, "fix the file and retry");
  }
  return parsed.data;
}

/**
 * Configurations parsed earlier in this process, by file stamp: a running server reads cairn.toml
 * (the workspace's and the machine's) on every call and catalog build, so an edit is seen at
 * once, and parses it only when it changed (kernel/stamp-cache.ts says what a stamp guarantees).
 * Each caller gets its own copy.
 */
const PARSED = new StampCache<WorkspaceConfig>(256);

/** A caller's own copy; a structured clone keeps no prototype, so the tables get theirs back. */
function copyOf(config: WorkspaceConfig): WorkspaceConfig {
  const copy = structuredClone(config);
  return { ...copy, roles: ownNames(copy.roles), shortcuts: ownNames(copy.shortcuts) };
}

export function loadConfig(path: string): WorkspaceConfig {
  const now = Date.now();
  const stats = statSync(path, { throwIfNoEntry: false });
  if (!stats?.isFile()) return WorkspaceConfig.parse({});
  const stamp = stampOf(stats);
  const hit = PARSED.get(path, stamp);
  if (hit) return copyOf(hit);
  let text: string;
  try {
    // Judged again on the descriptor: a FIFO put in its place after the stat is never waited on.
    text = readRegularFile(path);
  } catch {
    return WorkspaceConfig.parse({});
  }
  const config = parseConfig(text, path);
  PARSED.set(path, stamp, isRacy(stats, now), copyOf(config));
  return config;
}

export const CONFIG_TEMPLATE = `# cairn workspace configuration.

[workspace]
name = "%NAME%"

# Roles give agents standing instructions, a scope and a tool profile.
# [roles.builder]
# summary = "Implements tasks in src/"
# instructions = "Run the tests before you finish."
# scope = ["src/**"]          # globs; exact: "src" names the file src alone
# out_of_scope = ["src/vendor"] # wins over scope; holds what is inside, as in .gitignore
# grant = "rw"          # rw | ro
# wip_cap = 2
# escalate_to = "lead"
# profile = "worker"    # worker | planner | operator | all
# child_roles = ["reviewer"]  # roles its children may take besides its own
# planning = false      # true: may change a frozen goal's proofs, freeze runs, approve evaluators

# Claims are leases: \`cairn sweep\` releases those of agents silent this long.
# [claims]
# lease_minutes = 30

# The workspace definition of done, checked by every \`task finish\`.
# [done]
# shortcuts = ["test"]      # shortcuts that must exit 0, run with no params
# note_kinds = ["decision"] # note kinds the task must carry

# [verify]
# timeout_seconds = 600     # a verify command running longer is killed

# Shortcuts: named command templates; arguments are never passed through a shell.
# [shortcuts.test]
# argv = ["npm", "test"]    # a "{{file}}" word takes \`shortcut run --params file=…\`
# effect = "read"           # read | write | destructive; none (the default) never runs
# roles = ["builder"]
`;
