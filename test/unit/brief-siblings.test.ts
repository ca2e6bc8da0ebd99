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
import { scratchDir } from "../helpers/workspace.js";

/**
 * A brief reads only the ids, titles and statuses of a task's siblings, and however many there
 * are, what any of them found reaches it: an epic of 150 tasks, a finding on the last one.
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
      tx.tasks.insert(
        {
          title,
          soThat: "",
          context: "",
          parentId,
          priority: "should",
          estimate: null,
          traces: [],
          labels: [],
          createdBy: "owner",
        },
        AT,
      );
    const parent = await make("the epic", null);
    const children: string[] = [];
    for (let n = 1; n <= SIBLINGS; n++) children.push((await make(`child ${n}`, parent.id)).id);
    const elsewhere = await make("another epic's child", (await make("another epic", null)).id);
    await tx.journal.append({ at: AT, actor: "owner", action: "test.seed", subject: parent.id, data: {} });
    return { parent: parent.id, children, elsewhere: elsewhere.id };
  });
  epic = ids.parent;
  first = ids.children[0] as string;
  const last = ids.children.at(-1) as string;
  const find = (text: string, scope: string) =>
    addNote(store, OWNER, { kind: "finding", text, severity: "major", scope }, AT);
  await find("the last sibling found the cache is never invalidated", last);
  await find("a task of another epic found something unrelated", ids.elsewhere);
});

afterAll(async () => {
  await store.close();
  scratch.cleanup();
});

describe("a brief's siblings", () => {
  it("lists every sibling and shows what the last of 150 found, and nothing from another epic", async () => {
    const inputs = await gatherBriefInputs(store, boardBriefSource(store, config), {
      actor: OWNER,
      config,
      taskId: first,
      now: AT,
    });
    expect(inputs.task.siblings).toHaveLength(SIBLINGS - 1);
    expect(inputs.task.siblings[0]).toEqual({ id: expect.any(String), title: "child 2", status: "open" });
    expect(inputs.task.siblings.map((s) => s.id)).not.toContain(first);
    expect(inputs.findings.map((f) => f.text)).toEqual([
      "the last sibling found the cache is never invalidated",
    ]);
    const brief = assembleBrief(inputs, 4_000);
    expect(brief.kind === "ok" && brief.text).toContain(
      "the last sibling found the cache is never invalidated",
    );
  });

  it("childRefs names the children in order, and none for a leaf", async () => {
    const refs = await store.read((tx) => tx.tasks.childRefs(epic));
    expect(refs).toHaveLength(SIBLINGS);
    expect(refs.slice(0, 2).map((r) => r.title)).toEqual(["child 1", "child 2"]);
    expect(await store.read((tx) => tx.tasks.childRefs(first))).toEqual([]);
  });
});
