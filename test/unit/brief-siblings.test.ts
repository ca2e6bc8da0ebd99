import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OWNER } from "../../src/domains/identity/actor.js";
import { assembleBrief } from "../../src/domains/knowledge/brief/engine.js";
import { gatherBriefInputs } from "../../src/domains/knowledge/brief/gather.js";
import { addNote } from "../../src/domains/knowledge/notes.js";
import { boardBriefSource } from "../../src/domains/tasks/brief-source.js";
import { WorkspaceConfig } from "../../src/domains/workspace/config.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { newTask } from "../helpers/new-task.js";
import { scratchDir } from "../helpers/workspace.js";

/**
 * A brief never reads its task's siblings, and however many there are, what any of them found
 * reaches it (the findings query names them from the parent): an epic of 150 tasks, a finding
 * on the last one, a grandchild's finding left out.
 */
const SIBLINGS = 150;
const AT = "2026-11-30T00:00:00.000Z";
const config = WorkspaceConfig.parse({});

let scratch: { dir: string; cleanup: () => void };
let store: Store;
let epic: string;
let first: string;

beforeAll(async () => {
  scratch = scratchDir();
  store = openStore(join(scratch.dir, "cairn.db"), { create: true });
  const ids = await store.write(async (tx) => {
    const make = (title: string, parentId: string | null) =>
      tx.tasks.insert(newTask(title, { parentId, priority: "should" }), AT);
    const parent = await make("the epic", null);
    const children: string[] = [];
    for (let n = 1; n <= SIBLINGS; n++) children.push((await make(`child ${n}`, parent.id)).id);
    const elsewhere = await make("another epic's child", (await make("another epic", null)).id);
    const grandchild = await make("a grandchild", children[1] ?? null);
    await tx.journal.append({ at: AT, actor: "owner", action: "test.seed", subject: parent.id, data: {} });
    return { parent: parent.id, children, elsewhere: elsewhere.id, grandchild: grandchild.id };
  });
  epic = ids.parent;
  first = ids.children[0] as string;
  const last = ids.children.at(-1) as string;
  const find = (text: string, scope: string) =>
    addNote(store, OWNER, { kind: "finding", text, severity: "major", scope }, AT);
  await find("the last sibling found the cache is never invalidated", last);
  await find("a task of another epic found something unrelated", ids.elsewhere);
  await find("a sibling's own child found something below it", ids.grandchild);
});

afterAll(async () => {
  await store.close();
  scratch.cleanup();
});

const briefInputs = (taskId: string) =>
  gatherBriefInputs(store, boardBriefSource(config), { actor: OWNER, config, taskId, now: AT });

describe("a brief's siblings", () => {
  it("shows what the last of 150 siblings found, and nothing from a grandchild or another epic", async () => {
    const inputs = await briefInputs(first);
    expect(inputs.findings.map((f) => f.text)).toEqual([
      "the last sibling found the cache is never invalidated",
    ]);
    const brief = assembleBrief(inputs, 4_000);
    expect(brief.kind === "ok" && brief.text).toContain(
      "the last sibling found the cache is never invalidated",
    );
  });

  it("a root task has no siblings: another epic's findings stay out of the epic's brief", async () => {
    const inputs = await briefInputs(epic);
    expect(inputs.findings).toEqual([]);
  });
});
