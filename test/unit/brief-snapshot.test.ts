import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OWNER } from "../../src/domains/identity/actor.js";
import { gatherBriefInputs } from "../../src/domains/knowledge/brief/gather.js";
import type { TaskBriefSource } from "../../src/domains/knowledge/brief/inputs.js";
import { remember } from "../../src/domains/knowledge/memory.js";
import { addNote } from "../../src/domains/knowledge/notes.js";
import { boardBriefSource } from "../../src/domains/tasks/brief-source.js";
import { WorkspaceConfig } from "../../src/domains/workspace/config.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { newTask } from "../helpers/new-task.js";
import { scratchDir } from "../helpers/workspace.js";

/**
 * A brief is one moment of the workspace. Another connection (another agent's server) writes a
 * decision and a fact on the task while the brief is being gathered, right after the task was
 * read: the brief shows neither, and the next brief shows both.
 */
const AT = "2026-12-01T00:00:00.000Z";
const config = WorkspaceConfig.parse({});

let scratch: { dir: string; cleanup: () => void };
let store: Store;
let other: Store;
let task: string;

beforeAll(async () => {
  scratch = scratchDir();
  store = openStore(join(scratch.dir, "cairn.db"), { create: true });
  other = openStore(join(scratch.dir, "cairn.db"));
  task = await store.write(async (tx) => {
    const created = await tx.tasks.insert(newTask("tune the cache eviction", {}), AT);
    await tx.journal.append({ at: AT, actor: "owner", action: "test.seed", subject: created.id, data: {} });
    return created.id;
  });
});

afterAll(async () => {
  await other.close();
  await store.close();
  scratch.cleanup();
});

describe("a brief's snapshot", () => {
  it("never mixes the task as read before another connection's write with notes or memory from after it", async () => {
    const board = boardBriefSource(config);
    let wrote = false;
    const writingMidway: TaskBriefSource = {
      async briefTask(tx, id) {
        const read = await board.briefTask(tx, id);
        if (!wrote) {
          wrote = true;
          await addNote(
            other,
            OWNER,
            { kind: "decision", chose: "LRU eviction", rejected: "LFU", because: "simpler", scope: task },
            AT,
          );
          await remember(other, OWNER, { text: "the cache eviction runs every minute" }, AT);
        }
        return read;
      },
    };
    const options = { actor: OWNER, config, taskId: task, now: AT };
    const during = await gatherBriefInputs(store, writingMidway, options);
    expect(wrote).toBe(true);
    expect(during.decisions).toEqual([]);
    expect(during.facts).toEqual([]);
    const after = await gatherBriefInputs(store, board, options);
    expect(after.decisions.map((decision) => decision.chose)).toEqual(["LRU eviction"]);
    expect(after.facts.map((fact) => fact.text)).toEqual(["the cache eviction runs every minute"]);
  });
});
