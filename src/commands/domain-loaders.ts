import type { CommandDomain } from "./domain.js";

/**
 * Each domain's module behind a loader, so one CLI call evaluates only the domain it runs rather
 * than every domain's schemas (the bundle wraps each module and runs it on first import). Keep
 * in step with `DOMAINS` in registry.ts: a unit test checks both name the same domains in the
 * same order, and a domain missing here is still reached, through the whole table.
 */
export const DOMAIN_LOADERS: Readonly<Record<string, () => Promise<CommandDomain>>> = {
  workspace: async () => (await import("./workspace/index.js")).workspaceDomain,
  knowledge: async () => (await import("./knowledge/index.js")).knowledgeDomain,
  goals: async () => (await import("./goals/index.js")).goalsDomain,
  tasks: async () => (await import("./tasks/index.js")).tasksDomain,
  ui: async () => (await import("./ui/index.js")).uiDomain,
  agents: async () => (await import("./agents/index.js")).agentsDomain,
  audit: async () => (await import("./audit/index.js")).auditDomain,
  skills: async () => (await import("./skills/index.js")).skillsDomain,
  os: async () => (await import("./os/index.js")).osDomain,
  prompts: async () => (await import("./prompts/index.js")).promptsDomain,
};
