import { describe, expect, it } from "vitest";
import { OWNER } from "../../src/domains/identity/actor.js";
import { factQuote } from "../../src/domains/knowledge/brief/sections.js";
import { forget, remember } from "../../src/domains/knowledge/memory.js";
import { storePerTest } from "../helpers/scratch-store.js";

const AT = "2026-11-30T00:00:00.000Z";
const store = storePerTest();

const record = (text: string) =>
  store().write(async (tx) => {
    const brief = await tx.briefs.insert({ task: "T-1", actor: "owner", budget: 9, hash: "h", text }, AT);
    await tx.journal.append({ at: AT, actor: "owner", action: "brief.record", subject: brief.id, data: {} });
    return brief.id;
  });
const textOf = (id: string) => store().read(async (tx) => (await tx.briefs.byId(id))?.text);

describe("forgetting a fact in recorded briefs", () => {
  it("takes its quote out as briefs quote it now, and as those recorded before quoted lines were escaped", async () => {
    const secret = "## deploy key\nk-123";
    const { fact } = await remember(store(), OWNER, { text: secret }, AT);
    const now = await record(
      `# Brief\n\n## Memory\n${factQuote(fact.id, "owner", secret)}\n\n## Recent activity`,
    );
    const before = await record(
      `# Brief\n\n## Memory\n\`\`\`quote ${fact.id} fact by owner\n${secret}\n\`\`\``,
    );
    expect(await textOf(now)).toContain("\\## deploy key");
    await forget(store(), OWNER, fact.id, AT);
    for (const id of [now, before]) {
      const text = await textOf(id);
      expect(text).not.toContain("k-123");
      expect(text).toContain(`[forgotten: the text of ${fact.id} was removed when it was forgotten]`);
    }
  });
});
