import { describe, expect, it } from "vitest";
import { TITLE_CHARS } from "../../src/domains/limits/limits.js";
import { previewOfHead, previewText } from "../../src/kernel/text.js";
import { ASK_HEAD_CHARS, type AskHeadRecord, type AskRecord } from "../../src/store/asks.js";
import { contractStores, journaledWrite, storeForSuite } from "../helpers/contract-stores.js";
import { newTask } from "../helpers/new-task.js";
import { previewTexts } from "../helpers/preview-texts.js";

const AT = "2026-06-01T00:00:00.000Z";

/** Questions and answers as lists preview them (previewTexts). */
const TEXTS = previewTexts(200_000);

/** What a list shows of a question, from the whole one... */
const shownOfWhole = ({ question, answer, ...rest }: AskRecord) => ({
  ...rest,
  question: previewText(question, TITLE_CHARS),
  questionLength: question.length,
  answer: answer === null ? null : previewText(answer, TITLE_CHARS),
  answerLength: answer?.length ?? null,
});
/** ...and from its heads. */
const shownOfHeads = ({ question, answer, ...rest }: AskHeadRecord) => ({
  ...rest,
  question: previewOfHead(question, TITLE_CHARS),
  questionLength: question.length,
  answer: answer === null ? null : previewOfHead(answer, TITLE_CHARS),
  answerLength: answer?.length ?? null,
});

/**
 * `asks`, `status`, `now` and a task's detail read each question as its heads: anyone may ask, a
 * read-only agent too, up to 256 KiB a question, and a hundred of them read whole made every
 * `status` read 25 MB to show 500 characters of each. Both stores show what the whole ones do.
 */
describe.each(contractStores("askheads"))("question heads store contract: $name", ({ create }) => {
  const store = storeForSuite(create);
  const write = journaledWrite(store, AT);

  it("open, recent and one question read as heads preview exactly as the whole questions do", async () => {
    await write(async (tx) => {
      await tx.tasks.insert(newTask("asked about"), AT);
      await tx.tasks.insert(newTask("asked about too"), AT);
      for (const [index, question] of TEXTS.entries()) {
        const toRole = index % 2 === 0 ? "lead" : "qa";
        const ask = await tx.asks.insert(
          { taskId: `T-${1 + (index % 2)}`, question, askedBy: "A-1", toRole },
          AT,
        );
        // Every third is answered, with a text of the list too.
        if (index % 3 === 0)
          await tx.asks.answer(ask.id, TEXTS[TEXTS.length - 1 - index] as string, "owner", AT);
      }
    });
    const whole = await store.read(async (tx) => {
      const all: AskRecord[] = [];
      for (let n = 1; n <= TEXTS.length; n++) all.push((await tx.asks.byId(`Q-${n}`)) as AskRecord);
      return all;
    });
    const open = (filter: { toRole?: string; taskId?: string }) =>
      whole.filter(
        (ask) =>
          ask.answeredAt === null &&
          (filter.toRole === undefined || ask.toRole === filter.toRole) &&
          (filter.taskId === undefined || ask.taskId === filter.taskId),
      );
    for (const filter of [{}, { toRole: "lead" }, { taskId: "T-2" }, { toRole: "qa", taskId: "T-2" }])
      for (const limit of [1, 3, 100]) {
        const heads = await store.read((tx) => tx.asks.openHeads({ ...filter, limit }));
        expect({ shown: heads.map(shownOfHeads), filter, limit }).toEqual({
          shown: open(filter).slice(0, limit).map(shownOfWhole),
          filter,
          limit,
        });
      }
    const newestFirst = [...whole].reverse();
    for (const limit of [1, 4, 100])
      expect((await store.read((tx) => tx.asks.recentHeads(limit))).map(shownOfHeads)).toEqual(
        newestFirst.slice(0, limit).map(shownOfWhole),
      );
    for (const ask of whole)
      expect(shownOfHeads((await store.read((tx) => tx.asks.headById(ask.id))) as AskHeadRecord)).toEqual(
        shownOfWhole(ask),
      );
    expect(await store.read((tx) => tx.asks.headById("Q-404"))).toBeUndefined();
    // The long ASCII question was read as its head alone, measured without being read.
    expect((await store.read((tx) => tx.asks.headById("Q-4")))?.question).toEqual({
      head: `long ${"c".repeat(ASK_HEAD_CHARS - 5)}`,
      length: 200_005,
    });
  });
});
