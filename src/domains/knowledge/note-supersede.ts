import { conflict, notFound, refuse, usageError } from "../../kernel/outcome.js";
import { shortIdNumber } from "../../kernel/short-id.js";
import { quoteValue } from "../../kernel/text.js";
import type { NoteRecord } from "../../store/knowledge.js";
import type { Store } from "../../store/store.js";
import { type Actor, OWNER } from "../identity/actor.js";

/**
 * Mark a note replaced by a later one of its kind: a decision reversed, a metric redefined, a
 * finding restated. The old note stays readable (`note show`, and `note list` marks it) and
 * leaves every brief, as a superseded fact leaves recall; until then a reversed decision was
 * quoted in briefs beside the one reversing it, both as standing.
 *
 * As with facts, any writer replaces an agent's note, but the owner's notes are the owner's to
 * replace; and only by a later note, or an agent could take the newest decision out of the briefs
 * by naming an older one it prefers as its replacement.
 */
export async function supersedeNote(
  store: Store,
  actor: Actor,
  input: { id: string; by: string },
  now: string,
): Promise<{ note: NoteRecord; by: NoteRecord }> {
  return store.write(async (tx) => {
    const note = await tx.notes.byId(input.id);
    if (!note) throw notFound(`no note ${quoteValue(input.id)}`, "list notes with `cairn note list`");
    const by = await tx.notes.byId(input.by);
    if (!by)
      throw notFound(
        `no note ${quoteValue(input.by)} to replace ${note.id} with`,
        "record the note that replaces it first (`cairn note add`), then name it with --by",
      );
    if (by.id === note.id)
      throw usageError(`${note.id} cannot replace itself`, "name the later note with --by");
    if (by.body.kind !== note.body.kind)
      throw usageError(
        `${note.id} is a ${note.body.kind} and ${by.id} a ${by.body.kind}: a note is replaced by one of its kind`,
        `record the ${note.body.kind} that replaces it, then name it with --by`,
      );
    if (shortIdNumber(by.id) < shortIdNumber(note.id))
      throw refuse(
        "note",
        `${by.id} was recorded before ${note.id}: a note is replaced only by a later one`,
        `record what replaces ${note.id} now (\`cairn note add\`), then name it with --by`,
      );
    if (note.author === OWNER.id && !actor.isOwner)
      throw refuse(
        "ownership",
        `${note.id} was written by the owner; only the owner replaces the owner's notes`,
        `your ${by.body.kind} ${by.id} stands in briefs beside it, under your name; ask the owner to run \`cairn note supersede ${note.id} --by ${by.id}\``,
      );
    if (note.superseded)
      throw conflict(
        `${note.id} was already replaced by ${note.superseded.by}`,
        `read it with \`cairn note show ${note.id}\``,
      );
    if (by.superseded)
      throw conflict(
        `${by.id} was itself replaced by ${by.superseded.by}`,
        `replace ${note.id} with ${by.superseded.by} instead`,
      );
    if (!(await tx.notes.supersede(note.id, by.id, now)))
      throw conflict(`${note.id} was replaced meanwhile`, `read it with \`cairn note show ${note.id}\``);
    await tx.journal.append({
      at: now,
      actor: actor.id,
      action: "note.supersede",
      subject: note.id,
      data: { by: by.id },
    });
    return { note: { ...note, superseded: { by: by.id, at: now } }, by };
  });
}
