import type { FactRecord, NewFact } from "../../store/knowledge.js";
import type { NewJournalEvent, Store } from "../../store/store.js";
import type { Actor } from "../identity/actor.js";
import { checkFact, corroborates, MAX_TOPICS, refuseIfCorrected, restatementAction } from "./memory.js";
import { mergeTopics } from "./text.js";

/**
 * Many `remember` calls in one write (an import of a team's memory, a benchmark corpus): the
 * workspace ends exactly as after calling `remember` on each input in order (the same facts,
 * ids, reinforcements, search index and journal events), but new facts go in as batches instead
 * of a few statements each. Every input is checked first: one bad input refuses the whole call
 * and nothing is written, as does one restating a corrected fact.
 */
export async function rememberAll(
  store: Store,
  actor: Actor,
  inputs: readonly { text: string; topics?: string[] }[],
  now: string,
): Promise<{ remembered: number; reinforced: number }> {
  const checked = inputs.map((input) => {
    const text = input.text.trim();
    return { text, ...checkFact(text, input.topics) };
  });
  return store.write(async (tx) => {
    const norms = [...new Set(checked.map((c) => c.norm))];
    const live = await tx.facts.liveByNorms(norms);
    await refuseIfCorrected(
      tx,
      norms.filter((norm) => !live.has(norm)),
    );
    // Who does what, in input order: the first input of a norm not live yet is new, every later
    // one (and one whose norm is live already) reinforces.
    const fresh: NewFact[] = [];
    const plan: { norm: string; topics: string[]; reinforce: boolean }[] = [];
    const planned = new Set(live.keys());
    for (const { text, norm, topics } of checked) {
      const reinforce = planned.has(norm);
      if (!reinforce) {
        fresh.push({ text, norm, topics, author: actor.id });
        planned.add(norm);
      }
      plan.push({ norm, topics, reinforce });
    }
    const made = await tx.facts.insertMany(fresh, now);
    for (const [i, fact] of made.entries()) live.set((fresh[i] as NewFact).norm, fact);
    const events: NewJournalEvent[] = [];
    // One caller counts once per fact, here as across calls: the journal holds the calls before.
    const corroborated = new Set<string>();
    for (const step of plan) {
      let fact = live.get(step.norm) as FactRecord;
      let counted = false;
      if (step.reinforce) {
        counted = !corroborated.has(fact.id) && (await corroborates(tx, actor, fact));
        if (counted) corroborated.add(fact.id);
        fact = await tx.facts.reinforce(
          fact.id,
          mergeTopics(fact.topics, step.topics, MAX_TOPICS),
          now,
          counted,
        );
        live.set(step.norm, fact);
      }
      events.push({
        at: now,
        actor: actor.id,
        action: step.reinforce ? restatementAction(counted) : "fact.remember",
        subject: fact.id,
        data: step.reinforce ? {} : { topics: step.topics },
      });
    }
    for (const event of events) await tx.journal.append(event);
    const reinforced = plan.filter((step) => step.reinforce).length;
    return { remembered: plan.length - reinforced, reinforced };
  });
}
