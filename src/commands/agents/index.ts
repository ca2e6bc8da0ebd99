import type { CommandDomain } from "../domain.js";
import { agentsCatalog } from "./catalog.js";
import { agentsDigest } from "./digest.js";
import { agentsRemediate, agentsRun } from "./run.js";
import { agentsNew } from "./scaffold.js";
import { AGENTS_TOOLS } from "./tools.js";
import {
  agentsDoctor,
  agentsInspect,
  agentsList,
  agentsLogs,
  agentsNext,
  agentsStatusCommand,
} from "./views.js";

/** Local agents: manifests on disk as tools, their runs, health and the scheduler's view. */
export const agentsDomain: CommandDomain = {
  name: "agents",
  commands: [
    agentsNew,
    agentsList,
    agentsRun,
    agentsStatusCommand,
    agentsLogs,
    agentsInspect,
    agentsDigest,
    agentsDoctor,
    agentsNext,
    agentsRemediate,
  ],
  tools: AGENTS_TOOLS,
  groups: {
    agents: "Local agents (agent.toml): scaffold, run, status, logs, doctor; `cairn daemon` schedules them",
  },
  catalog: agentsCatalog,
};
