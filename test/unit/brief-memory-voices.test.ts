import { describe, expect, it } from "vitest";
import { actorOf, OWNER } from "../../src/domains/identity/actor.js";
import { addAgent } from "../../src/domains/identity/agents.js";
import { gatherBriefInputs } from "../../src/domains/knowledge/brief/gather.js";
import type { BriefTask, TaskBriefSource } from "../../src/domains/knowledge/brief/inputs.js";
import { remember } from "../../src/domains/knowledge/memory.js";
import { WorkspaceConfig } from "../../src/domains/workspace/config.js";
import { storePerTest } from "../helpers/scratch-store.js";

const TASK: BriefTask = {
  id: "T-1",
  title: "Build the parser",
  status: "open",
  author: "owner",
  soThat: null,
  context: null,
  acceptance: [],
  dependencies: [],
  outOfScope: [],
  parents: [],
  goal: null,
  recentActivity: [],
};
const source: TaskBriefSource = { briefTask: async (_tx, id) => (id === TASK.id ? TASK : undefined) };
const config = WorkspaceConfig.parse({});

let clock = 0;
const now = () => new Date(Date.UTC(2026, 10, 30, 0, 0, clock++)).toISOString();
const store = storePerTest();

const gather = () => gatherBriefInputs(store(), source, { actor: OWNER, config, taskId: "T-1", now: now() });

describe("the memory a brief recalls", () => {
  it("shows a lone writer's best facts in every place, and says when more matched", async () => {
    for (let i = 1; i <= 8; i++)
      await remember(store(), OWNER, { text: `The parser rule ${i} holds` }, now());
    const eight = await gather();
    expect(eight.facts).toHaveLength(8);
    expect(eight.more?.facts).toBe(false);
    await remember(store(), OWNER, { text: "The parser rule 9 holds" }, now());
    const nine = await gather();
    expect(nine.facts).toHaveLength(8);
    expect(nine.more?.facts).toBe(true);
  });

  it("lets the owner's facts take every place they rank for: the owner's words are no flood", async () => {
    const bob = actorOf(
      (await addAgent(store(), config, OWNER, { name: "bob", role: "builder" }, now())).agent,
    );
    for (let i = 1; i <= 2; i++) await remember(store(), bob, { text: `The parser rule b${i} holds` }, now());
    for (let i = 1; i <= 10; i++)
      await remember(store(), OWNER, { text: `The parser rule ${i} holds` }, now());
    const brief = await gather();
    expect(brief.facts.map((fact) => fact.author)).toEqual(Array(8).fill("owner"));
    expect(brief.more?.facts).toBe(true);
  });
});
