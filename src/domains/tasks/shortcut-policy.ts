import { type RefusedError, refuse } from "../../kernel/outcome.js";
import type { ShortcutHead, ShortcutRecord } from "../../store/tasks.js";
import { type Actor, lineageOf, OWNER } from "../identity/actor.js";
import { type Effect, guardRefusal } from "../identity/guard.js";
import type { WorkspaceConfig } from "../workspace/config.js";
import { rolesOf } from "./scope.js";

// Who may run a shortcut: its own policy (effect, roles, the role lists of the caller's line,
// who wrote it), then the guard with the effect it trusts. Run, checked for a brief, and for the
// definition of done alike.

/**
 * The effect the guard takes a shortcut to have. Its declared effect when the workspace owner
 * defined it (in cairn.toml, or with `shortcut add` as the owner, which also vouches for an
 * agent's); at least `write` when an agent did: an agent's `read` label is its own say-so, and
 * would let every read-only agent run whatever command it wrote (`sh -c {{cmd}}`).
 */
function guardedEffect(declared: Effect, shortcut: Pick<ShortcutRecord, "source" | "addedBy">): Effect {
  return fromOwner(shortcut) || declared !== "read" ? declared : "write";
}

/** Written by the owner: in cairn.toml, or added (or redefined, which vouches for it) as the owner. */
export const fromOwner = (shortcut: Pick<ShortcutRecord, "source" | "addedBy">) =>
  shortcut.source === "config" || shortcut.addedBy === OWNER.id;

/** The shortcut's own policy, then the guard with the effect it trusts (`guardedEffect`). */
export function allowShortcut(
  config: WorkspaceConfig,
  actor: Actor,
  shortcut: ShortcutHead,
  confirmed: boolean,
): void {
  const refusal = shortcutRefusal(config, actor, shortcut, confirmed);
  if (refusal) throw refusal();
}

/** Whether allowShortcut lets the caller run it: asked of every shortcut for a brief. */
export const mayRunShortcut = (config: WorkspaceConfig, actor: Actor, shortcut: ShortcutHead) =>
  shortcutRefusal(config, actor, shortcut, true) === null;

/**
 * allowShortcut's refusal, to be thrown, or null. Built only when thrown: a brief asks it of every
 * shortcut, and any writer adds them (5,000 an agent added made each brief build and throw 5,000
 * errors).
 */
function shortcutRefusal(
  config: WorkspaceConfig,
  actor: Actor,
  shortcut: ShortcutHead,
  confirmed: boolean,
): (() => RefusedError) | null {
  if (shortcut.effect === "none") {
    return () =>
      refuse(
        "shortcut",
        `shortcut ${shortcut.name} declares no effect, so it will not run`,
        `declare effect = "read" | "write" | "destructive" for it in cairn.toml (or \`cairn shortcut add\`)`,
      );
  }
  const outsider = actor.isOwner
    ? undefined
    : lineageOf(actor).find((member) => shortcut.roles.length > 0 && !shortcut.roles.includes(member.role));
  if (outsider) {
    return () =>
      refuse(
        "shortcut",
        `shortcut ${shortcut.name} is for roles ${shortcut.roles.join(", ")}, not ${outsider.role}${outsider.id === actor.id ? "" : ` (the role of ${actor.name}'s ancestor ${outsider.id})`}`,
        "ask an agent of one of those roles, or the owner",
      );
  }
  // Every role in the caller's line must allow it: a child cannot run what its parent may not.
  for (const { name, role } of rolesOf(config, actor)) {
    if (role.shortcuts.length === 0) continue;
    if (!role.shortcuts.includes(shortcut.name)) {
      return () =>
        refuse(
          "shortcut",
          `role ${name} may run only ${role.shortcuts.join(", ")}`,
          "ask an agent whose role allows it, or the owner",
        );
    }
    // A role's list is the owner's choice of commands, made by name: a listed name that the owner
    // never defined would let an agent write the command behind it (`shortcut add`), then run it.
    if (!fromOwner(shortcut)) {
      return () =>
        refuse(
          "shortcut",
          `role ${name} may run ${shortcut.name} only as the owner defines it; this one was added by agent ${shortcut.addedBy}`,
          `ask the owner to define it in cairn.toml, or to redefine it with \`cairn shortcut add ${shortcut.name}\`, which vouches for it`,
        );
    }
  }
  const declared = shortcut.effect;
  const effect = guardedEffect(declared, shortcut);
  if (actor.grant === "ro" && effect !== declared) {
    return () =>
      refuse(
        "grant",
        `${actor.name} has a read-only grant; shortcut ${shortcut.name} is declared read by agent ${shortcut.addedBy}, not by the workspace owner, so it runs as a write: a read-only agent runs only read shortcuts the owner defined`,
        `ask the owner to add it to cairn.toml (or to redefine it with \`cairn shortcut add ${shortcut.name}\`, which vouches for it), or ask an agent with a write grant to run it`,
      );
  }
  return guardRefusal(actor, { name: `shortcut ${shortcut.name}`, effect, confirmed });
}
