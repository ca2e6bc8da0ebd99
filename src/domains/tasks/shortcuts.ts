import { conflict, notFound, operational, refuse, usageError } from "../../kernel/outcome.js";
import { type ProgressSink, runProgress } from "../../kernel/progress.js";
import { readsAsShortId } from "../../kernel/short-id.js";
import { quoteValue } from "../../kernel/text.js";
import { stopCauseOf } from "../../kernel/until-stopped.js";
import type { Store, Tx } from "../../store/store.js";
import type {
  CriterionRecord,
  Evidence,
  ShortcutEffect,
  ShortcutHead,
  ShortcutRecord,
} from "../../store/tasks.js";
import { checkoutFor } from "../goals/git.js";
import type { Actor } from "../identity/actor.js";
import { type AskPerson, agreedByPerson } from "../identity/guard.js";
import { ARGV_TOTAL_CHARS, FIELD_CHARS } from "../limits/limits.js";
import type { WorkspaceConfig } from "../workspace/config.js";
import { journal, loadTask, who } from "./common.js";
import { commandLine, commandWords, runCommand } from "./runner.js";
import { allowShortcut } from "./shortcut-policy.js";

const NAME = /^[a-zA-Z0-9][a-zA-Z0-9_-]{0,63}$/;
const PLACEHOLDER = /\{\{\s*([a-zA-Z0-9_-]+)\s*\}\}/g;

function fromConfig(config: WorkspaceConfig, name: string): ShortcutRecord | undefined {
  const entry = config.shortcuts[name];
  return entry ? { name, ...entry, source: "config", addedBy: "owner", version: 0 } : undefined;
}

/** cairn.toml is the reviewed source: its shortcuts win over ones added at run time. */
export async function findShortcut(tx: Tx, config: WorkspaceConfig, name: string): Promise<ShortcutRecord> {
  const found = fromConfig(config, name) ?? (await tx.shortcuts.byName(name));
  if (!found) throw notFound(`no shortcut ${quoteValue(name)}`, "see `cairn shortcut list`");
  return found;
}

/**
 * The shortcut a criterion's check runs. One from cairn.toml, a file the checked agent can edit,
 * as it was when the criterion was set; one from the store, as the store holds it now (only
 * whoever defined it, or the owner, can redefine it there), never a cairn.toml entry of the same
 * name written since. Criteria set before definitions were kept, and the definition of done,
 * read it as it is now.
 */
export async function shortcutOf(
  tx: Tx,
  config: WorkspaceConfig,
  criterion: Pick<CriterionRecord, "shortcut"> & Partial<Pick<CriterionRecord, "shortcutDefinition">>,
): Promise<ShortcutRecord> {
  const set = criterion.shortcutDefinition;
  if (set?.source === "config") return set;
  const name = criterion.shortcut as string;
  if (!set) return findShortcut(tx, config, name);
  const stored = await tx.shortcuts.byName(name);
  if (!stored)
    throw notFound(`no shortcut ${quoteValue(name)} in the store any more`, "see `cairn shortcut list`");
  return stored;
}

/** A page of `shortcut list`: cairn.toml's first, in the file's order, then the store's by name. */
export interface ShortcutPage {
  shortcuts: (ShortcutRecord & { uses: number })[];
  total: number;
}

/**
 * Shortcuts a page at a time: any writer can add them, each with a command of up to
 * ARGV_TOTAL_CHARS (1 MiB before that limit), so the whole list was as large as writers made it
 * (160 MB, read in full by every brief too).
 */
export async function listShortcuts(
  store: Store,
  config: WorkspaceConfig,
  window: { limit: number; offset: number },
): Promise<ShortcutPage> {
  return store.read(async (tx) => {
    const configured = Object.keys(config.shortcuts);
    const fromFile = configured
      .slice(window.offset, window.offset + window.limit)
      .map((name) => fromConfig(config, name) as ShortcutRecord);
    const stored = await tx.shortcuts.page({
      limit: window.limit - fromFile.length,
      offset: Math.max(0, window.offset - configured.length),
      excluding: configured,
    });
    const uses = await tx.tasks.countEvents("shortcut.run");
    return {
      shortcuts: [...fromFile, ...stored.shortcuts].map((shortcut) => ({
        ...shortcut,
        uses: uses[shortcut.name] ?? 0,
      })),
      total: configured.length + stored.total,
    };
  });
}

/**
 * Every shortcut's head (name, effect, roles) with its use count, cairn.toml's first: what
 * decides which of them a caller may run, without reading any command or summary.
 */
export async function shortcutHeadsIn(tx: Tx, config: WorkspaceConfig) {
  const uses = await tx.tasks.countEvents("shortcut.run");
  const configured = Object.keys(config.shortcuts);
  const heads: ShortcutHead[] = [
    ...configured.map((name) => fromConfig(config, name) as ShortcutRecord),
    ...(await tx.shortcuts.heads()).filter((head) => !config.shortcuts[head.name]),
  ];
  return heads.map(({ name, effect, roles, source, addedBy }) => ({
    name,
    effect,
    roles,
    source,
    addedBy,
    uses: uses[name] ?? 0,
  }));
}

/**
 * Add or redefine a stored shortcut. A shortcut belongs to whoever added it: redefining someone
 * else's is refused (the owner excepted), so no agent can swap the command behind a name others
 * trust. Every definition is journaled with its version.
 */
export async function addShortcut(
  store: Store,
  config: WorkspaceConfig,
  actor: Actor,
  shortcut: { name: string; argv: string[]; effect: ShortcutEffect; roles: string[]; summary: string },
  now: string,
) {
  if (!NAME.test(shortcut.name))
    throw usageError(`shortcut name ${quoteValue(shortcut.name)} must be letters, digits, - or _`);
  // A run is journaled under the shortcut's name: one named `A-2` wrote events about agent A-2.
  if (readsAsShortId(shortcut.name))
    throw usageError(
      `shortcut name ${quoteValue(shortcut.name)} reads as an id`,
      "choose a name that is not an id (T-4, 7)",
    );
  if (shortcut.argv.length === 0) throw usageError("a shortcut needs a command (--argv, once per word)");
  const chars = shortcut.argv.reduce((sum, word) => sum + word.length, 0);
  if (chars > ARGV_TOTAL_CHARS)
    throw usageError(
      `shortcut ${shortcut.name}: argv holds at most ${ARGV_TOTAL_CHARS} characters in all (this one has ${chars} in ${shortcut.argv.length} words): ${quoteValue(shortcut.argv.join(" "))}`,
      "keep long arguments in a file the command reads, or make them {{params}} given at each run",
    );
  if (config.shortcuts[shortcut.name]) {
    throw conflict(
      `shortcut ${shortcut.name} is defined in cairn.toml`,
      "edit it there, or choose another name",
    );
  }
  return store.write(async (tx) => {
    const existing = await tx.shortcuts.byName(shortcut.name);
    if (existing && existing.addedBy !== actor.id && !actor.isOwner) {
      throw refuse(
        "ownership",
        `shortcut ${shortcut.name} belongs to ${await who(tx, existing.addedBy)}; only its author or the owner may redefine it`,
        "choose another name, or ask its author or the owner to change it",
      );
    }
    const version = (existing?.version ?? 0) + 1;
    // The owner redefining an agent's shortcut vouches for it: it becomes the owner's, so the agent
    // can neither change it back nor be barred from verifying with what the owner wrote.
    const addedBy = actor.isOwner ? actor.id : (existing?.addedBy ?? actor.id);
    await tx.shortcuts.upsert({ ...shortcut, addedBy, version }, now);
    await journal(tx, actor, now, "shortcut.add", shortcut.name, {
      version,
      argv: shortcut.argv,
      effect: shortcut.effect,
      roles: shortcut.roles,
      previous: existing ? { version: existing.version, argv: existing.argv, effect: existing.effect } : null,
    });
    return { ...shortcut, source: "store" as const, addedBy, version };
  });
}

/**
 * The most characters a filled word may hold: an argv word's, as a verify command's words are
 * held to. Placeholders side by side (`{{a}}{{b}}`, or one repeated) filled a word many times
 * that, which a check's evidence kept, and every import of the workspace's export refused.
 */
const FILLED_WORD_CHARS = FIELD_CHARS.argv as number;

/** Fill `{{param}}` placeholders word by word: a value stays one argument, whatever it holds. */
export function fillArgv(shortcut: ShortcutRecord, params: Record<string, string>): string[] {
  const wanted = new Set<string>();
  for (const word of shortcut.argv)
    for (const match of word.matchAll(PLACEHOLDER)) wanted.add(match[1] as string);
  // Own values only: a `{{toString}}` left unfilled is missing, not Object's function.
  const missing = [...wanted].filter((name) => !Object.hasOwn(params, name) || params[name] === undefined);
  if (missing.length > 0) {
    throw usageError(
      `shortcut ${shortcut.name} needs ${missing.map((m) => `--params ${m}=...`).join(" ")}`,
      `its command: ${shortcut.argv.join(" ")}`,
    );
  }
  const stray = Object.keys(params).filter((name) => !wanted.has(name));
  if (stray.length > 0) {
    // The names are the caller's text: quoted, cut short, and only the first few of them.
    const named = stray.slice(0, 3).map((name) => quoteValue(name));
    const more = stray.length > named.length ? ` (and ${stray.length - named.length} more)` : "";
    throw usageError(
      `shortcut ${shortcut.name} has no parameter ${named.join(", ")}${more}`,
      `its command: ${shortcut.argv.join(" ")}`,
    );
  }
  const endOfOptions = shortcut.argv.indexOf("--");
  return shortcut.argv.map((word, index) => {
    const filled = word.replace(PLACEHOLDER, (_, name: string) => params[name] as string);
    if (filled.length > FILLED_WORD_CHARS) {
      throw usageError(
        `shortcut ${shortcut.name}: word ${index + 1} filled holds ${filled.length} characters; an argv word holds at most ${FILLED_WORD_CHARS}`,
        "pass shorter values, or keep long text in a file and pass its path",
      );
    }
    // A value must not become an option (`git diff {{ref}}` with ref=--output=FILE writes a file),
    // unless the template marks where options end with a `--` before it.
    if (filled.startsWith("-") && !word.startsWith("-") && (endOfOptions === -1 || index < endOfOptions)) {
      const name = [...word.matchAll(PLACEHOLDER)].map((m) => m[1]).join(", ");
      throw usageError(
        `shortcut ${shortcut.name}: parameter ${name} = ${quoteValue(filled)} starts with "-" and would be read as an option`,
        `pass a value that does not start with "-", or put "--" before {{${name}}} in the shortcut's argv`,
      );
    }
    return filled;
  });
}

export interface ShortcutRun {
  name: string;
  evidence: Evidence;
  uses: number;
}

/**
 * How much of a destructive shortcut's command line a person is shown before they agree: enough
 * for any command a person could read, and a longer one is marked as cut, so they can refuse it.
 */
const SHOWN_COMMAND_CHARS = 2_000;

/**
 * Run a shortcut through its policy and the guard, as argv, and record the run in the journal:
 * its start before the command runs, so a caller killed outright (kill -9 leaves the command
 * running) still leaves a trace of what it ran, and its end (cancelled or not) after.
 */
export async function runShortcut(
  store: Store,
  config: WorkspaceConfig,
  actor: Actor,
  root: string,
  request: {
    name: string;
    params: Record<string, string>;
    confirm: boolean;
    task?: string;
    /** Where the caller works: a linked worktree of the workspace's repository is where it runs. */
    cwd?: string;
  },
  now: () => string,
  controls: { signal?: AbortSignal; progress?: ProgressSink; askPerson?: AskPerson } = {},
): Promise<ShortcutRun> {
  const { signal } = controls;
  const { shortcut, task } = await store.read(async (tx) => ({
    shortcut: await findShortcut(tx, config, request.name),
    // The run is recorded on a task that exists, by its id: not on "T-999" or any text given.
    task: request.task === undefined ? null : (await loadTask(tx, request.task)).id,
  }));
  allowShortcut(config, actor, shortcut, request.confirm);
  const argv = fillArgv(shortcut, request.params);
  // The person sees the command line the run will start, its parameters filled in: whole up to
  // SHOWN_COMMAND_CHARS, not progress's short line, whose cut a parameter could push the rest of
  // the command behind (`build/cache/…` hid the `../../..` that followed).
  if (shortcut.effect === "destructive" && controls.askPerson)
    await agreedByPerson(controls.askPerson, {
      signal: signal ?? new AbortController().signal,
      store,
      actor,
      name: `shortcut ${shortcut.name}`,
      what: `it runs ${quoteValue(commandWords(argv), SHOWN_COMMAND_CHARS)}`,
    });
  const cwd = request.cwd ? await checkoutFor(request.cwd, root) : root;
  const recorded = { argv, version: shortcut.version, source: shortcut.source, task };
  await store.write((tx) => journal(tx, actor, now(), "shortcut.start", shortcut.name, recorded));
  const progress = runProgress(controls.progress);
  progress.say(`${shortcut.name}: running ${commandLine(argv)}`);
  const evidence = await runCommand({
    argv,
    cwd,
    timeoutMs: config.verify.timeout_seconds * 1000,
    now,
    signal,
    onOutput: (latestLine) => progress.say(() => `${shortcut.name}: ${latestLine()}`),
  }).finally(() => progress.stop());
  // A cancelled run ran too (what it did before it was stopped stays done): recorded, then refused.
  const cancelled = signal?.aborted === true;
  const run = await store.write(async (tx) => {
    await journal(tx, actor, now(), "shortcut.run", shortcut.name, {
      ...recorded,
      exit_code: evidence.exit_code,
      timed_out: evidence.timed_out,
      duration_ms: evidence.duration_ms,
      output_sha256: evidence.output_sha256,
      ...(cancelled ? { cancelled } : {}),
      // Why, when cairn cancelled it itself (its caller was retired while it ran).
      ...(cancelled && stopCauseOf(signal) ? { reason: stopCauseOf(signal) } : {}),
    });
    const uses = (await tx.tasks.countEvents("shortcut.run"))[shortcut.name] ?? 0;
    return { name: shortcut.name, evidence, uses };
  });
  if (cancelled) throw operational(`cancelled: shortcut ${shortcut.name} was stopped`);
  return run;
}
