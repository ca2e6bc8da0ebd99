import { conflict, notFound, refuse } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import type { FactRecord } from "../../store/knowledge.js";
import type { Store } from "../../store/store.js";
import { type Actor, OWNER } from "../identity/actor.js";
import { checkFact, refuseIfCorrected, restate, restatementAction } from "./memory.js";

/**
 * Replace a fact with a corrected one. The old stays readable by id but is never recalled again.
 * Any writer corrects an agent's fact, but the owner's facts are the owner's to replace: an
 * agent superseding "Deploys need the owner's sign-off" with "Deploys need no sign-off" took the
 * owner's word out of every later recall and brief, its own standing in that place. An agent
 * that holds otherwise remembers its own fact, recalled beside the owner's under its own name.
 */
export async function supersede(
  store: Store,
  actor: Actor,
  input: { id: string; text: string; topics?: string[] },
  now: string,
): Promise<{ old: FactRecord; fact: FactRecord; reinforced: boolean }> {
  const text = input.text.trim();
  const checked = checkFact(text, input.topics);
  return store.write(async (tx) => {
    const old = await tx.facts.byId(input.id);
    if (!old)
      throw notFound(
        `no fact ${quoteValue(input.id)} (it may have been forgotten)`,
        "find the current one with `cairn recall`",
      );
    if (old.author === OWNER.id && !actor.isOwner)
      throw refuse(
        "ownership",
        `${old.id} was remembered by the owner; only the owner supersedes the owner's facts`,
        `remember what you found as a fact of your own (it is recalled beside ${old.id}, under your name), and tell the owner, who may supersede ${old.id}`,
      );
    // Superseded by a fact since forgotten, it is replaceable again: nothing else stands for it.
    if (old.supersededBy && (await tx.facts.byId(old.supersededBy))) {
      throw conflict(
        `${old.id} was already superseded by ${old.supersededBy}`,
        `supersede ${old.supersededBy} instead`,
      );
    }
    // Out of recall first, so a replacement that restates it is stored as the new live fact.
    await tx.facts.supersede(old.id, "", now);
    const topicsOfNew = checked.topics.length > 0 ? checked.topics : old.topics;
    const existing = await tx.facts.liveByNorm(checked.norm);
    let fact: FactRecord;
    if (existing) {
      // The correction is a fact already known: restating it, which corroborates it as `remember`
      // would (and is journaled as one, so the same author is not counted twice).
      const restated = await restate(tx, actor, existing, topicsOfNew, now);
      fact = restated.fact;
      if (restated.counted)
        await tx.journal.append({
          at: now,
          actor: actor.id,
          action: restatementAction(true),
          subject: fact.id,
          data: {},
        });
    } else {
      // A corrected text comes back by superseding its correction (or the chain's live end, which
      // `old` then is). Put in place of any other fact, it stood in recall beside its correction,
      // the undoing `remember` refuses.
      await refuseIfCorrected(tx, [checked.norm], old.id);
      fact = await tx.facts.insert({ text, norm: checked.norm, topics: topicsOfNew, author: actor.id }, now);
    }
    await tx.facts.supersede(old.id, fact.id, now);
    await tx.journal.append({
      at: now,
      actor: actor.id,
      action: "fact.supersede",
      subject: old.id,
      data: { by: fact.id },
    });
    return { old: (await tx.facts.byId(old.id)) as FactRecord, fact, reinforced: existing !== undefined };
  });
}
