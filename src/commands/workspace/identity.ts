import { z } from "zod";
import { addAgent, listAgents, retireAgent, rotateAgentToken } from "../../domains/identity/agents.js";
import { PROFILES } from "../../domains/workspace/config.js";
import type { AgentRecord } from "../../store/store.js";
import { defineCommand } from "../define.js";

/** An agent as outputs show it (a builder: see `Lazy` in define.ts). */
const agentSchema = () =>
  z.object({
    id: z.string(),
    name: z.string(),
    role: z.string(),
    grant: z.enum(["rw", "ro"]),
    parent: z.string().nullable(),
    created_at: z.string(),
    retired_at: z.string().nullable(),
  });

const agentView = (agent: AgentRecord): z.infer<ReturnType<typeof agentSchema>> => ({
  id: agent.id,
  name: agent.name,
  role: agent.role,
  grant: agent.grant,
  parent: agent.parentId,
  created_at: agent.createdAt,
  retired_at: agent.retiredAt,
});

export const whoami = defineCommand({
  name: "whoami",
  summary: "Who this process acts as: identity, role, grant and tool profile",
  effect: "read",
  input: () => z.object({}),
  output: () =>
    z.object({
      id: z.string(),
      name: z.string(),
      role: z.string(),
      grant: z.enum(["rw", "ro"]),
      is_owner: z.boolean(),
      parent: z.string().nullable(),
      profile: z.enum(PROFILES),
      role_summary: z.string(),
      workspace: z.string(),
    }),
  async handler(_input, ctx) {
    const { actor } = ctx;
    return {
      id: actor.id,
      name: actor.name,
      role: actor.role,
      grant: actor.grant,
      is_owner: actor.isOwner,
      parent: actor.parentId,
      profile: ctx.profile,
      role_summary: ctx.config.roles[actor.role]?.summary ?? "",
      workspace: ctx.workspace.root,
    };
  },
  render: (out) =>
    `${out.name} (${out.id}) role=${out.role} grant=${out.grant} profile=${out.profile}${out.is_owner ? " [owner]" : ""}\nworkspace: ${out.workspace}`,
});

export const agentAdd = defineCommand({
  name: "agent add",
  summary: "Register an agent and print its token once (set it as CAIRN_AGENT in the agent's MCP config)",
  effect: "write",
  positional: ["name"],
  input: () =>
    z.object({
      name: z.string().describe("letters, digits, - and _"),
      role: z.string().describe("a role from cairn.toml, or a new role name"),
      grant: z.enum(["rw", "ro"]).optional().describe("rw (default) or ro; never wider than the parent's"),
      parent: z.string().optional().describe("id or name of the parent agent"),
    }),
  output: () =>
    z.object({
      agent: agentSchema(),
      token: z.string(),
      role_declared: z
        .boolean()
        .describe(
          "false: cairn.toml declares no such role, so no instructions, scope, WIP cap or shortcut list bind it",
        ),
    }),
  async handler(input, ctx) {
    const { agent, token } = await addAgent(ctx.store, ctx.config, ctx.actor, input, ctx.now());
    return { agent: agentView(agent), token, role_declared: Object.hasOwn(ctx.config.roles, agent.role) };
  },
  render: (out) =>
    `Added agent ${out.agent.name} (${out.agent.id}) role=${out.agent.role} grant=${out.agent.grant}\n` +
    (out.role_declared
      ? ""
      : `note: cairn.toml declares no role ${out.agent.role}: no instructions, scope, WIP cap or shortcut list bind it until \`cairn role add ${out.agent.role}\` (or a [roles.${out.agent.role}] table) does\n`) +
    `token (shown once, store it now): ${out.token}\n` +
    `launch it with: CAIRN_AGENT=${out.token} cairn mcp`,
});

export const agentList = defineCommand({
  name: "agent list",
  summary: "List agents (retired ones with --all)",
  effect: "read",
  input: () => z.object({ all: z.boolean().optional().describe("include retired agents") }),
  output: () => z.object({ agents: z.array(agentSchema()) }),
  async handler(input, ctx) {
    return { agents: (await listAgents(ctx.store, input.all === true)).map(agentView) };
  },
  render: (out) =>
    out.agents.length === 0
      ? "No agents yet: `cairn agent add NAME --role ROLE`."
      : out.agents
          .map(
            (a) =>
              `${a.id.padEnd(6)} ${a.name.padEnd(16)} ${a.role.padEnd(12)} ${a.grant}${a.parent ? ` parent=${a.parent}` : ""}${a.retired_at ? " (retired)" : ""}`,
          )
          .join("\n"),
});

export const agentRetire = defineCommand({
  name: "agent retire",
  summary:
    "Revoke an agent's token and its descendants' at once; their running servers refuse their next call",
  effect: "write",
  positional: ["agent"],
  input: () => z.object({ agent: z.string().describe("id or name") }),
  output: () => {
    const agent = agentSchema();
    return z.object({ agent, descendants: z.array(agent) });
  },
  async handler(input, ctx) {
    const out = await retireAgent(ctx.store, ctx.actor, input.agent, ctx.now());
    return { agent: agentView(out.agent), descendants: out.descendants.map(agentView) };
  },
  render: (out) =>
    `Retired ${out.agent.name} (${out.agent.id})${out.descendants.length > 0 ? `, and its descendants ${out.descendants.map((d) => `${d.name} (${d.id})`).join(", ")}` : ""}`,
});

export const agentRotate = defineCommand({
  name: "agent rotate",
  summary:
    "Give an agent a new token, printed once (a leaked one): the old token stops working, its servers refuse their next call",
  effect: "write",
  positional: ["agent"],
  input: () => z.object({ agent: z.string().describe("id or name") }),
  output: () => z.object({ agent: agentSchema(), token: z.string() }),
  async handler(input, ctx) {
    const { agent, token } = await rotateAgentToken(ctx.store, ctx.actor, input.agent, ctx.now());
    return { agent: agentView(agent), token };
  },
  render: (out) =>
    `New token for ${out.agent.name} (${out.agent.id}); the old one no longer works\n` +
    `token (shown once, store it now): ${out.token}\n` +
    `relaunch it with: CAIRN_AGENT=${out.token} cairn mcp`,
});
