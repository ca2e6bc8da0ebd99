import { conflict, notFound, refuse, usageError } from "../../kernel/outcome.js";
import type { Store, Tx } from "../../store/store.js";
import type { Evidence, ShortcutEffect, ShortcutRecord } from "../../store/tasks.js";
import type { Actor } from "../identity/actor.js";
import { guard } from "../identity/guard.js";
import type { WorkspaceConfig } from "../workspace/config.js";
import { journal } from "./common.js";
import { runCommand } from "./runner.js";
import { roleOf } from "./scope.js";

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const PLACEHOLDER = /\{\{\s*([a-zA-Z0-9_-]+)\s*\}\}/g;

function fromConfig(config: WorkspaceConfig, name: string): ShortcutRecord | undefined {
  const entry = config.shortcuts[name];
  return entry ? { name, ...entry, source: "config" } : undefined;
}

/** cairn.toml is the reviewed source: its shortcuts win over ones added at run time. */
export async function findShortcut(tx: Tx, config: WorkspaceConfig, name: string): Promise<ShortcutRecord> {
  const found = fromConfig(config, name) ?? (await tx.shortcuts.byName(name));
  if (!found) throw notFound(`no shortcut ${name}`, "see `cairn shortcut list`");
  return found;
}

export async function listShortcuts(store: Store, config: WorkspaceConfig) {
  return store.read(async (tx) => {
    const uses = await tx.tasks.countEvents("shortcut.run");
    const stored = (await tx.shortcuts.list()).filter((s) => !config.shortcuts[s.name]);
    const all = [
      ...Object.keys(config.shortcuts).map((name) => fromConfig(config, name) as ShortcutRecord),
      ...stored,
    ];
    return all.map((shortcut) => ({ ...shortcut, uses: uses[shortcut.name] ?? 0 }));
  });
}

export async function addShortcut(
  store: Store,
  config: WorkspaceConfig,
  actor: Actor,
  shortcut: { name: string; argv: string[]; effect: ShortcutEffect; roles: string[]; summary: string },
  now: string,
) {
  if (!NAME.test(shortcut.name))
    throw usageError(`shortcut name ${JSON.stringify(shortcut.name)} must be letters, digits, - or _`);
  if (shortcut.argv.length === 0) throw usageError("a shortcut needs a command (--argv, once per word)");
  if (config.shortcuts[shortcut.name]) {
    throw conflict(
      `shortcut ${shortcut.name} is defined in cairn.toml`,
      "edit it there, or choose another name",
    );
  }
  return store.write(async (tx) => {
    await tx.shortcuts.upsert(shortcut, now);
    await journal(tx, actor, now, "shortcut.add", shortcut.name, {
      argv: shortcut.argv,
      effect: shortcut.effect,
    });
    return { ...shortcut, source: "store" as const };
  });
}

/** Fill `{{param}}` placeholders word by word: a value stays one argument, whatever it holds. */
export function fillArgv(shortcut: ShortcutRecord, params: Record<string, string>): string[] {
  const wanted = new Set<string>();
  for (const word of shortcut.argv)
    for (const match of word.matchAll(PLACEHOLDER)) wanted.add(match[1] as string);
  const missing = [...wanted].filter((name) => params[name] === undefined);
  if (missing.length > 0) {
    throw usageError(
      `shortcut ${shortcut.name} needs ${missing.map((m) => `--params ${m}=...`).join(" ")}`,
      `its command: ${shortcut.argv.join(" ")}`,
    );
  }
  const stray = Object.keys(params).filter((name) => !wanted.has(name));
  if (stray.length > 0) {
    throw usageError(
      `shortcut ${shortcut.name} has no parameter ${stray.join(", ")}`,
      `its command: ${shortcut.argv.join(" ")}`,
    );
  }
  return shortcut.argv.map((word) => word.replace(PLACEHOLDER, (_, name: string) => params[name] as string));
}

/** The shortcut's own policy, then the guard with its declared effect. */
export function allowShortcut(
  config: WorkspaceConfig,
  actor: Actor,
  shortcut: ShortcutRecord,
  confirmed: boolean,
): void {
  if (shortcut.effect === "none") {
    throw refuse(
      "shortcut",
      `shortcut ${shortcut.name} declares no effect, so it will not run`,
      `declare effect = "read" | "write" | "destructive" for it in cairn.toml (or \`cairn shortcut add\`)`,
    );
  }
  if (!actor.isOwner && shortcut.roles.length > 0 && !shortcut.roles.includes(actor.role)) {
    throw refuse(
      "shortcut",
      `shortcut ${shortcut.name} is for roles ${shortcut.roles.join(", ")}, not ${actor.role}`,
      "ask an agent of one of those roles, or the owner",
    );
  }
  const allowed = roleOf(config, actor)?.shortcuts ?? [];
  if (allowed.length > 0 && !allowed.includes(shortcut.name)) {
    throw refuse(
      "shortcut",
      `role ${actor.role} may run only ${allowed.join(", ")}`,
      "ask an agent whose role allows it, or the owner",
    );
  }
  guard(actor, { name: `shortcut ${shortcut.name}`, effect: shortcut.effect, confirmed });
}

export interface ShortcutRun {
  name: string;
  evidence: Evidence;
  uses: number;
}

/** Run a shortcut through its policy and the guard, as argv, and record the run in the journal. */
export async function runShortcut(
  store: Store,
  config: WorkspaceConfig,
  actor: Actor,
  root: string,
  request: { name: string; params: Record<string, string>; confirm: boolean; task?: string },
  now: () => string,
): Promise<ShortcutRun> {
  const shortcut = await store.read((tx) => findShortcut(tx, config, request.name));
  allowShortcut(config, actor, shortcut, request.confirm);
  const argv = fillArgv(shortcut, request.params);
  const evidence = await runCommand({
    argv,
    cwd: root,
    timeoutMs: config.verify.timeout_seconds * 1000,
    now,
  });
  return store.write(async (tx) => {
    await journal(tx, actor, now(), "shortcut.run", shortcut.name, {
      argv,
      exit_code: evidence.exit_code,
      timed_out: evidence.timed_out,
      duration_ms: evidence.duration_ms,
      output_sha256: evidence.output_sha256,
      task: request.task ?? null,
    });
    const uses = (await tx.tasks.countEvents("shortcut.run"))[shortcut.name] ?? 0;
    return { name: shortcut.name, evidence, uses };
  });
}
