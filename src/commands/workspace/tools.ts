import { EVERY_PROFILE, type ToolSpec } from "../tool-spec.js";

/** Orientation and the escape hatch: in every profile. */
export const WORKSPACE_TOOLS: readonly ToolSpec[] = [
  {
    name: "whoami",
    title: "Who am I",
    description:
      "Your agent id, role, grant (rw or ro) and tool profile; fixed at server start, no call changes it.",
    wraps: { command: "whoami" },
    profiles: EVERY_PROFILE,
    idempotent: true,
  },
  {
    name: "status",
    title: "Workspace status",
    description: "Orient: what the workspace holds, active agents, the board, the latest event.",
    wraps: { command: "status" },
    profiles: EVERY_PROFILE,
    idempotent: true,
  },
  {
    name: "cli",
    title: "Run a cairn command",
    description:
      'Run any cairn command without a tool of its own, e.g. argv ["agent","list"]; returns what `cairn <argv> --json` prints, and its exit code. ["capabilities"] lists them all. Exit 3 is a refusal: an answer; follow its `next`.',
    wraps: { cli: true },
    profiles: EVERY_PROFILE,
    idempotent: false,
  },
];
