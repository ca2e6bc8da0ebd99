import { EVERY_PROFILE, type ToolSpec } from "../tool-spec.js";

/** Orientation and the escape hatch: in every profile. */
export const WORKSPACE_TOOLS: readonly ToolSpec[] = [
  {
    name: "whoami",
    title: "Who am I",
    description:
      "Your agent id, role, grant (rw or ro) and tool profile, bound when the server started; no call changes them. " +
      "Call it once if unsure what you may do: with ro, writes are refused. Then next_task.",
    wraps: { command: "whoami" },
    profiles: EVERY_PROFILE,
    idempotent: true,
  },
  {
    name: "status",
    title: "Workspace status",
    description:
      "Orient at the start of a session: task counts by status, who holds what, blocked tasks and open questions, " +
      "active agents, the latest event. Then next_task to pick work, or list_tasks to look closer.",
    wraps: { command: "status" },
    profiles: EVERY_PROFILE,
    idempotent: true,
  },
  {
    name: "cli",
    title: "Run a cairn command",
    description:
      'Run any cairn command that has no tool of its own, e.g. argv ["agent","list"] or ["note","list","--scope","T-3"]; ' +
      'returns the JSON `cairn <argv> --json` prints, with its exit code. ["capabilities"] lists every command. ' +
      "Same guard as the tools. Exit 3 is a refusal, an answer: do not retry, follow its `next`; 2 is a usage error.",
    wraps: { cli: true },
    profiles: EVERY_PROFILE,
    idempotent: false,
  },
];
