import { notFound } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import type { Workspace } from "../workspace/discover.js";
import {
  type Discovery,
  discoverAgents,
  type LoadedAgent,
  type ManifestProblem,
  manifestRoots,
} from "./manifest.js";
import { remediationToolName, runToolName } from "./naming.js";
import { remediationArgv } from "./preflight.js";

export interface AgentTool {
  name: string;
  agent: LoadedAgent;
}

export interface RemediationTool {
  name: string;
  agent: LoadedAgent;
  /** 1-based, in declaration order among the agent's preflights. */
  index: number;
  argv: string[];
}

export interface AgentCatalog extends Discovery {
  tools: AgentTool[];
  remediations: RemediationTool[];
  /** Two agents whose tool names met after sanitizing: the first found kept it. */
  collisions: { tool: string; kept: string; dropped: string }[];
  /** The agents that lost a collision: out of `agents`, so nothing runs them, by name or schedule. */
  dropped: LoadedAgent[];
}

/** Rebuilt from disk on every call: a tool name is matched against this, never reversed. */
export function agentCatalog(workspace: Workspace, env: NodeJS.ProcessEnv): AgentCatalog {
  const discovery = discoverAgents(manifestRoots(workspace, env));
  const tools: AgentTool[] = [];
  const remediations: RemediationTool[] = [];
  const collisions: AgentCatalog["collisions"] = [];
  const byTool = new Map<string, string>();
  const claim = (name: string, path: string): boolean => {
    const earlier = byTool.get(name);
    if (earlier !== undefined) {
      collisions.push({ tool: name, kept: earlier, dropped: path });
      return false;
    }
    byTool.set(name, path);
    return true;
  };
  for (const agent of discovery.agents) {
    const name = runToolName(agent.name);
    if (claim(name, agent.path)) tools.push({ name, agent });
  }
  // An agent whose run tool was dropped is dropped whole: its remediations would otherwise be
  // served under the winner's name (remediate-a-b-1 running what the dropped a/b declares).
  const kept = new Set(tools.map((tool) => tool.agent));
  for (const agent of discovery.agents) {
    if (!kept.has(agent)) continue;
    agent.manifest.preflight.forEach((preflight, position) => {
      const argv = remediationArgv(preflight);
      if (!argv) return;
      const name = remediationToolName(agent.name, position + 1);
      if (claim(name, agent.path)) remediations.push({ name, agent, index: position + 1, argv });
    });
  }
  // Dropped whole everywhere, not only from the tool list: `doctor` says the agent is dropped,
  // and a daemon still running it on schedule, or a run by its exact name, would say otherwise.
  const agents = discovery.agents.filter((agent) => kept.has(agent));
  const dropped = discovery.agents.filter((agent) => !kept.has(agent));
  return { ...discovery, agents, dropped, tools, remediations, collisions };
}

/**
 * Manifests read but never run: a name another manifest took first, a tool name another kept.
 * Health shown without them would say "ok" of a schedule the operator's own file never ran.
 */
export function ignoredManifests(catalog: AgentCatalog): ManifestProblem[] {
  return [
    ...catalog.duplicates.map((d) => ({
      file: d.dropped,
      reason: `ignored: agent name ${quoteValue(d.name)} is taken by ${d.kept}, found first`,
    })),
    ...catalog.collisions.map((c) => ({
      file: c.dropped,
      reason: `ignored: its tool name ${c.tool} is taken by ${c.kept}, found first`,
    })),
  ];
}

/** An agent by its manifest name (or its tool name), found through discovery, never as a path. */
export function findAgent(catalog: AgentCatalog, name: string): LoadedAgent {
  const agent =
    catalog.agents.find((candidate) => candidate.name === name) ??
    catalog.tools.find((tool) => tool.name === name)?.agent;
  if (agent) return agent;
  const loser = catalog.dropped.find((candidate) => candidate.name === name);
  if (loser) {
    const collision = catalog.collisions.find((entry) => entry.dropped === loser.path);
    throw notFound(
      `the local agent ${quoteValue(name)} (${loser.path}) is dropped: its tool name ${runToolName(name)} collides with ${collision?.kept ?? "another agent's"}, found first`,
      "rename one of the two agents; `cairn agents doctor` names both",
    );
  }
  throw notFound(
    `no local agent named ${quoteValue(name)}`,
    "see `cairn agents list` (or the agents_status tool)",
  );
}

export function describeAgentTool(agent: LoadedAgent): string {
  if (agent.manifest.agent.description) return agent.manifest.agent.description;
  const ids = agent.schedules.map((schedule) => schedule.id);
  return ids.length > 0
    ? `Run the ${agent.name} agent (schedules: ${ids.join(", ")}).`
    : `Run the ${agent.name} agent.`;
}
