/**
 * What a criterion (or a shortcut of the definition of done) runs, and the evidence of its run:
 * the command resolved and allowed for the checker, run in the checker's checkout.
 */
import { refuse } from "../../kernel/outcome.js";
import type { RunProgress } from "../../kernel/progress.js";
import { quoteValue } from "../../kernel/text.js";
import type { Store } from "../../store/store.js";
import type { CriterionRecord, Evidence } from "../../store/tasks.js";
import { sameTree } from "../identity/actor.js";
import { who } from "./common.js";
import { commandLine, runCommand } from "./runner.js";
import { allowShortcut, fromOwner } from "./shortcut-policy.js";
import { fillArgv, shortcutOf } from "./shortcuts.js";
import { checkoutOf, type Verifier } from "./verifier.js";

/** The command a criterion names, resolved and allowed, or the reason it cannot run. */
async function commandFor(
  verifier: Verifier,
  criterion: Pick<CriterionRecord, "verify" | "shortcut" | "params"> &
    Partial<Pick<CriterionRecord, "shortcutDefinition">>,
  store: Store,
  /** The workspace's definition of done, which names its shortcuts in cairn.toml (see below). */
  ofDone = false,
): Promise<{ argv: string[]; definition?: Evidence["shortcut"] }> {
  if (criterion.verify) return { argv: criterion.verify };
  const { actor } = verifier;
  const { shortcut, ownLine, addedBy } = await store.read(async (tx) => {
    const found = await shortcutOf(tx, verifier.config, criterion);
    const own = found.source === "store" && !actor.isOwner && (await sameTree(tx, actor, found.addedBy));
    return {
      shortcut: found,
      ownLine: own ? await who(tx, found.addedBy) : undefined,
      addedBy: fromOwner(found) ? undefined : await who(tx, found.addedBy),
    };
  });
  // The definition of done is the owner's rule, its shortcuts named in cairn.toml. A name listed
  // there that the owner never defined is filled by whichever agent defines it first: alice
  // defining `test` as `true` passed every other agent's finish, as a role's shortcut list did.
  if (ofDone && addedBy) {
    throw refuse(
      "shortcut",
      `the definition of done runs ${shortcut.name} only as the owner defines it; this one was added by ${addedBy}`,
      `ask the owner to define it in cairn.toml, or to redefine it with \`cairn shortcut add ${shortcut.name}\`, which vouches for it`,
    );
  }
  // A name a criterion or the definition of done trusts is not the checker's to fill: bob
  // defining a missing `gate` (or redefining his own `tests`) as `true` would tick anything.
  if (ownLine) {
    throw refuse(
      "shortcut",
      `shortcut ${shortcut.name} was defined by ${ownLine}, of ${actor.name}'s own line; it cannot verify ${actor.name}'s work`,
      "verify with a shortcut from cairn.toml or one the owner or another agent defined; ask the owner to define it",
    );
  }
  if (shortcut.effect === "destructive") {
    throw refuse(
      "shortcut",
      `shortcut ${shortcut.name} is destructive; it cannot verify a criterion`,
      "verify with a read shortcut",
    );
  }
  allowShortcut(verifier.config, verifier.actor, shortcut, false);
  return {
    argv: fillArgv(shortcut, criterion.params),
    // The evidence names the definition that ran: a later redefinition cannot rewrite history.
    definition: {
      name: shortcut.name,
      version: shortcut.version,
      source: shortcut.source,
      argv: [...shortcut.argv],
    },
  };
}

/** Run what a criterion names; `label` (`criterion 2`) heads each line of its progress. */
export async function verify(
  verifier: Verifier,
  criterion: CriterionRecord,
  store: Store,
  progress: RunProgress,
  label: string,
  ofDone = false,
): Promise<Evidence> {
  const { argv, definition } = await commandFor(verifier, criterion, store, ofDone);
  const seconds = criterion.timeoutSeconds ?? verifier.config.verify.timeout_seconds;
  progress.say(`${label}: running ${commandLine(argv)}`);
  const evidence = await runCommand({
    argv,
    cwd: await checkoutOf(verifier),
    timeoutMs: seconds * 1000,
    now: verifier.now,
    signal: verifier.signal,
    onOutput: (latestLine) => progress.say(() => `${label}: ${latestLine()}`),
    check: true,
    setting: criterion.setting,
  });
  return definition ? { ...evidence, shortcut: definition } : evidence;
}

export function whyFailed(evidence: Evidence): string {
  if (evidence.error) return evidence.error;
  if (evidence.signal) return `killed by ${evidence.signal}`;
  // The line that names the failure, if one does; else the last line printed.
  const lines = evidence.output_tail
    .trim()
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
  const telling = [...lines].reverse().find((line) => /error|fail|assert/i.test(line)) ?? lines.at(-1) ?? "";
  // The line is the command's output (code under test wrote it): quoted, so no refusal or
  // result that repeats it passes it off as cairn's own words.
  return `exited ${evidence.exit_code}${telling ? `: ${quoteValue(telling, 200)}` : ""}`;
}
