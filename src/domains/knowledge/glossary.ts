import { conflict, notFound, refuse } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import type { GlossaryEntry } from "../../store/knowledge.js";
import type { Store, Tx } from "../../store/store.js";
import type { Actor } from "../identity/actor.js";
import { who } from "../tasks/common.js";
import { matchForm } from "./brief/term-match.js";
import { requireShown } from "./risks.js";

/** The glossary: project terms and what they mean here, quoted in the briefs whose task uses them. */

/**
 * A term as it shows: spelled with an invisible character, decomposed accents or two spaces it is
 * the term it looks like (a brief matches it so).
 */
const termAsShown = (term: string) =>
  term
    .replace(/\p{Cf}+/gu, "")
    .normalize("NFC")
    .replace(/\s+/gu, " ")
    .trim();

/**
 * Define a term, or redefine one. A term belongs to whoever defined it: redefining someone else's
 * is refused (the owner excepted), so no agent can replace the meaning every brief quotes, and
 * the one it replaced, with its own.
 */
export async function defineTerm(
  store: Store,
  actor: Actor,
  input: { term: string; meaning: string },
  now: string,
): Promise<{ entry: GlossaryEntry; created: boolean }> {
  requireShown("term", { term: input.term, meaning: input.meaning });
  // As it shows, so it cannot stand beside another's definition as a second one.
  const term = termAsShown(input.term);
  const entry = { term, meaning: input.meaning.trim(), author: actor.id, updatedAt: now };
  return store.write(async (tx) => {
    const existing = await storedTerm(tx, entry.term);
    if (existing) await requireTermAuthor(tx, actor, existing, "redefine");
    const { created } = await tx.glossary.upsert(entry, existing?.term);
    await tx.journal.append({
      at: now,
      actor: actor.id,
      action: "glossary.define",
      subject: `term:${entry.term}`,
      data: { created },
    });
    return { entry, created };
  });
}

/**
 * Remove a term: it is quoted in no brief from then on. As with redefining, only its author or the
 * owner may: another agent could otherwise take a meaning it disagrees with out of every brief.
 */
export async function removeTerm(
  store: Store,
  actor: Actor,
  term: string,
  now: string,
): Promise<GlossaryEntry> {
  const asShown = termAsShown(term);
  return store.write(async (tx) => {
    const existing = await storedTerm(tx, asShown);
    if (!existing)
      throw notFound(
        `no term ${quoteValue(term)} in the glossary`,
        "list the terms with `cairn glossary list`",
      );
    await requireTermAuthor(tx, actor, existing, "remove");
    if (!(await tx.glossary.remove(existing.term)))
      throw conflict(
        `the term ${quoteValue(existing.term)} was removed or respelled meanwhile`,
        "list the terms with `cairn glossary list`",
      );
    await tx.journal.append({
      at: now,
      actor: actor.id,
      action: "glossary.remove",
      subject: `term:${existing.term}`,
      data: {},
    });
    return existing;
  });
}

/** A term belongs to whoever defined it: only its author or the owner changes it. */
async function requireTermAuthor(
  tx: Tx,
  actor: Actor,
  existing: GlossaryEntry,
  verb: "redefine" | "remove",
): Promise<void> {
  if (existing.author === actor.id || actor.isOwner) return;
  throw refuse(
    "ownership",
    `the term ${quoteValue(existing.term)} belongs to ${await who(tx, existing.author)}; only its author or the owner may ${verb} it`,
    "record what you know as a finding or a decision, or ask its author or the owner to change it",
  );
}

/** The stored entry this term names, spelled as stored or otherwise (spelledOtherwise). */
const storedTerm = async (tx: Tx, term: string): Promise<GlossaryEntry | undefined> =>
  (await tx.glossary.byTerm(term)) ?? (await spelledOtherwise(tx, term));

/** A term as a brief matches it: lower-cased past ASCII too, an accent composed or not. */
const termKey = (term: string) => matchForm(term).trim();

/**
 * The stored term that is this one but for a case or composition the stores do not fold (they
 * fold ASCII alone): "überweisung" is the owner's "Überweisung", and a brief quoting both under
 * one word let any agent set its meaning beside the owner's.
 */
async function spelledOtherwise(tx: Tx, term: string): Promise<GlossaryEntry | undefined> {
  const key = termKey(term);
  const stored = (await tx.glossary.termsMayOccurIn(key)).find((candidate) => termKey(candidate) === key);
  return stored === undefined ? undefined : tx.glossary.byTerm(stored);
}

/** A page of the glossary, by term: any writer defines terms, each meaning up to 256 KiB. */
export async function listGlossary(
  store: Store,
  query: { limit: number; offset: number },
): Promise<{ entries: GlossaryEntry[]; total: number }> {
  return store.read((tx) => tx.glossary.page(query));
}
