import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CommandContext } from "../../src/commands/context.js";
import { briefCommands } from "../../src/commands/knowledge/brief.js";
import { OWNER } from "../../src/domains/identity/actor.js";
import { MAX_BRIEF_BUDGET } from "../../src/domains/knowledge/brief/engine.js";
import { briefHash } from "../../src/domains/knowledge/brief/gather.js";
import type { BriefTask, TaskBriefSource } from "../../src/domains/knowledge/brief/inputs.js";
import { addNote } from "../../src/domains/knowledge/notes.js";
import { WorkspaceConfig } from "../../src/domains/workspace/config.js";
import { RefusedError } from "../../src/kernel/outcome.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { scratchDir } from "../helpers/workspace.js";

const task = (context: string): BriefTask => ({
  id: "T-1",
  title: "Ship it",
  status: "claimed",
  author: "owner",
  soThat: null,
  context,
  acceptance: [],
  dependencies: [],
  outOfScope: [],
  parents: [],
  goal: null,
  recentActivity: [],
});

let context = "short";
const source: TaskBriefSource = { briefTask: async (_tx, id) => (id === "T-1" ? task(context) : undefined) };
const { context: command, record } = briefCommands(() => source);

let scratch: { dir: string; cleanup: () => void };
let store: Store;
let ctx: CommandContext;
beforeEach(() => {
  scratch = scratchDir();
  store = openStore(join(scratch.dir, "cairn.db"), { create: true });
  ctx = {
    store,
    actor: OWNER,
    config: WorkspaceConfig.parse({}),
    now: () => new Date().toISOString(),
  } as unknown as CommandContext;
  context = "short";
});
afterEach(async () => {
  await store.close();
  scratch.cleanup();
});

describe("the context and brief record commands, over a hand-filled task seam", () => {
  it("rejects a budget of 0 or below in its input schema, naming the field", () => {
    for (const budget of [0, -1, -4000, 2.5]) {
      const parsed = command.input.safeParse({ task: "T-1", budget });
      expect(parsed.success, String(budget)).toBe(false);
      expect(parsed.error?.issues[0]?.path).toEqual(["budget"]);
    }
    expect(command.input.safeParse({ task: "T-1", budget: 1 }).success).toBe(true);
    // A brief past the largest one makes a result a stdio client drops with its connection (the
    // SDK's reads at most 10 MB a message): the budget stops there.
    expect(command.input.safeParse({ task: "T-1", budget: MAX_BRIEF_BUDGET }).success).toBe(true);
    const huge = command.input.safeParse({ task: "T-1", budget: MAX_BRIEF_BUDGET + 1 });
    expect(huge.error?.issues[0]?.path).toEqual(["budget"]);
  });

  it("returns a brief within the budget that matches its declared output, and records it on request", async () => {
    for (let i = 0; i < 12; i++) {
      await addNote(
        store,
        OWNER,
        { kind: "finding", text: `finding ${i} `.repeat(20), severity: "major" },
        ctx.now(),
      );
    }
    const out = await record.handler({ task: "T-1", budget: 300 }, ctx);
    expect(record.output.safeParse(out).success).toBe(true);
    expect(out.tokens).toBeLessThanOrEqual(300);
    expect(out.cuts).toHaveLength(1);
    expect(out.cuts[0]).toMatch(/^findings: (\d+ of )?12 findings$/);
    expect(out.recorded?.hash).toBe(briefHash(out.brief));
    const stored = await store.read((tx) => tx.briefs.byId(out.recorded?.id ?? ""));
    expect(stored?.text).toBe(out.brief);
  });

  it("refuses, with the size needed, when the task alone exceeds the budget", async () => {
    context = "y".repeat(8_000);
    const attempt = command.handler({ task: "T-1", budget: 500 }, ctx);
    await expect(attempt).rejects.toBeInstanceOf(RefusedError);
    await expect(attempt).rejects.toMatchObject({
      refusal: { policy: "budget", next: expect.stringMatching(/budget \d+/) },
    });
  });
});
