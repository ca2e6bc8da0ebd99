import { z } from "zod";
import { foldersNamedExactly } from "../../domains/tasks/scope.js";
import { PROFILES, type RoleConfig, RoleName } from "../../domains/workspace/config.js";
import { addRole } from "../../domains/workspace/roles.js";
import { defineCommand } from "../define.js";

const roleSchema = () =>
  z.object({
    name: z.string(),
    summary: z.string(),
    grant: z.enum(["rw", "ro"]),
    profile: z.enum(PROFILES).nullable(),
    scope: z.array(z.string()),
    out_of_scope: z.array(z.string()),
    wip_cap: z.number().nullable(),
    escalate_to: z.string().nullable(),
    shortcuts: z.array(z.string()),
    child_roles: z.array(z.string()),
    planning: z.boolean(),
  });

const roleView = (name: string, role: RoleConfig): z.infer<ReturnType<typeof roleSchema>> => ({
  name,
  summary: role.summary,
  grant: role.grant,
  profile: role.profile ?? null,
  scope: role.scope,
  out_of_scope: role.out_of_scope,
  wip_cap: role.wip_cap ?? null,
  escalate_to: role.escalate_to ?? null,
  shortcuts: role.shortcuts,
  child_roles: role.child_roles,
  planning: role.planning,
});

const renderRole = (role: z.infer<ReturnType<typeof roleSchema>>) =>
  `${role.name.padEnd(16)} ${role.grant} ${(role.profile ?? "-").padEnd(8)} ${role.scope.length > 0 ? role.scope.join(",") : "(everywhere)"}${role.summary ? `  ${role.summary}` : ""}`;

export const roleAdd = defineCommand({
  name: "role add",
  summary: "Declare a role in cairn.toml (owner only): summary, instructions, scope, grant, WIP cap, profile",
  effect: "write",
  positional: ["name"],
  input: () =>
    z.object({
      name: RoleName,
      summary: z.string().optional(),
      instructions: z.string().optional().describe("standing instructions every brief of the role carries"),
      scope: z
        .array(z.string())
        .optional()
        .describe("path globs the role works in, matched exactly: a folder is src/**, not src"),
      out_of_scope: z
        .array(z.string())
        .optional()
        .describe("path globs it must not touch (wins over scope); a folder named keeps all inside it out"),
      grant: z.enum(["rw", "ro"]).optional(),
      wip_cap: z.number().int().positive().optional().describe("tasks an agent may hold at once"),
      escalate_to: z.string().optional().describe("the role questions go to"),
      profile: z
        .enum(PROFILES)
        .optional()
        .describe("MCP tool profile; operator or all also runs every local agent and remediation"),
      shortcut: z.array(z.string()).optional().describe("shortcuts the role may run"),
      child_role: z.array(z.string()).optional().describe("roles its agents may give their children"),
      planning: z.boolean().optional().describe("may change frozen goals and approve evaluators"),
    }),
  output: () =>
    roleSchema().extend({
      notes: z.array(z.string()).describe("what in the role may not say what was meant (a folder as scope)"),
    }),
  async handler(input, ctx) {
    const { name, shortcut, child_role, ...fields } = input;
    const role = await addRole(
      ctx.store,
      ctx.actor,
      ctx.workspace.configPath,
      name,
      { ...fields, shortcuts: shortcut, child_roles: child_role },
      ctx.now(),
    );
    const notes = foldersNamedExactly(ctx.workspace.root, role.scope).map(
      (glob) =>
        `scope ${JSON.stringify(glob)} names the folder itself, not what is in it: \`${glob.replace(/\/+$/, "")}/**\` covers its files`,
    );
    return { ...roleView(name, role), notes };
  },
  render: (out) =>
    `Declared role ${out.name} in cairn.toml\n${renderRole(out)}${out.notes.map((note) => `\nnote: ${note}`).join("")}`,
});

export const roleList = defineCommand({
  name: "role list",
  summary: "The roles cairn.toml declares, with grant, profile and scope",
  effect: "read",
  input: () => z.object({}),
  output: () => z.object({ roles: z.array(roleSchema()) }),
  async handler(_input, ctx) {
    return { roles: Object.entries(ctx.config.roles).map(([name, role]) => roleView(name, role)) };
  },
  render: (out) => (out.roles.length === 0 ? "No roles declared." : out.roles.map(renderRole).join("\n")),
});
