import { z } from "zod";
import type { RulesChange } from "../../domains/workspace/rules-watch.js";

/** A change of cairn.toml's rules, as cairn first saw it (domains/workspace/rules-watch.ts). */
export const RulesChangeView = z.object({
  at: z.string(),
  sections: z
    .array(z.string())
    .describe(
      "claims, done, verify, skills, shortcuts.<name>, roles.<name>: every single table, and at most 10 shortcuts and 10 roles",
    ),
  sections_total: z
    .number()
    .int()
    .optional()
    .describe("how many sections it changed in all, when more than are named (`cairn activity`)"),
  first_seen_in_call_of: z
    .string()
    .describe("the caller whose call first ran under the changed rules: not necessarily who edited the file"),
  machine: z.string().optional().describe("on a shared store, the machine whose cairn.toml it was"),
});

export const rulesChangeView = (change: RulesChange): z.infer<typeof RulesChangeView> => ({
  at: change.at,
  sections: change.sections,
  ...(change.sectionsTotal !== undefined ? { sections_total: change.sectionsTotal } : {}),
  first_seen_in_call_of: change.firstSeenInCallOf,
  ...(change.machine ? { machine: change.machine } : {}),
});

/** A change as a line reads it. */
export const rulesChangeLine = (change: z.infer<typeof RulesChangeView>) => {
  const more = (change.sections_total ?? change.sections.length) - change.sections.length;
  const named = `${change.sections.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
  return `${named} at ${change.at}, first seen in a call of ${change.first_seen_in_call_of}${change.machine ? ` on ${change.machine}` : ""}`;
};

/** Where a person reads what a change's sections held before and after. */
export const RULES_CHANGES_HINT =
  "`cairn activity --action rules.changed` shows each section before and after";
