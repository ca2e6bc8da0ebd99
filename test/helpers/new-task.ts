import type { NewTask } from "../../src/store/tasks.js";

/** A task as the store inserts it: a root `must` task with nothing else, unless told otherwise. */
export function newTask(title: string, fields: Partial<NewTask> = {}): NewTask {
  return {
    title,
    soThat: "",
    context: "",
    parentId: null,
    priority: "must",
    estimate: null,
    traces: [],
    labels: [],
    createdBy: "owner",
    ...fields,
  };
}
