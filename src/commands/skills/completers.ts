import type { Completer, Completion } from "../resources.js";
import { MAX_COMPLETIONS } from "../resources.js";

/** The Skills extension's resource template: one file of one skill. */
export const SKILL_FILE_TEMPLATE = "skill://{name}/{+path}";

/** A prefix longer than any name or path a skill can hold completes nothing (and costs nothing). */
const MAX_TYPED = 1_024;

const NOTHING: Completion = { values: [], total: 0 };

/**
 * The candidates that start with what was typed, in any case (`PDF` offers `pdf`, as `t-1` offers
 * T-1): a completion is the exact name to use, so the client's case need not match it. Those that
 * match in the case typed come first.
 */
function matching(candidates: readonly string[], typed: string): Completion {
  const folded = typed.toLowerCase();
  const values = candidates.filter((candidate) => candidate.toLowerCase().startsWith(folded));
  const exact = values.filter((candidate) => candidate.startsWith(typed));
  const ordered = [...exact, ...values.filter((candidate) => !candidate.startsWith(typed))];
  return { values: ordered.slice(0, MAX_COMPLETIONS), total: values.length };
}

/**
 * `completion/complete` for the template's variables, run as the caller and as a model sees the
 * skills (people-only ones are not offered): the names of skills, and the files of the skill the
 * client has already named. A refusal or an unknown skill offers nothing.
 */
export const SKILL_FILE_COMPLETERS: Readonly<Record<string, Completer>> = {
  name: async (typed, run) => {
    if (typed.length > MAX_TYPED) return NOTHING;
    const out = await run("skill list", { for_model: true }).catch(() => undefined);
    if (!out || !Array.isArray(out.skills)) return NOTHING;
    return matching(
      (out.skills as { name: string }[]).map((skill) => skill.name),
      typed,
    );
  },
  path: async (typed, run, resolved) => {
    const name = resolved?.name;
    if (!name || typed.length > MAX_TYPED) return NOTHING;
    const out = await run("skill get", { name, for_model: true }).catch(() => undefined);
    if (!out || !Array.isArray(out.files)) return NOTHING;
    return matching(["SKILL.md", ...(out.files as { path: string }[]).map((file) => file.path)], typed);
  },
};
