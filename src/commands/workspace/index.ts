import type { CommandDomain } from "../domain.js";
import { capabilities } from "./capabilities.js";
import { agentAdd, agentList, agentRetire, agentRotate, whoami } from "./identity.js";
import { roleAdd, roleList } from "./roles.js";
import { status } from "./status.js";
import { storeCopy } from "./store-copy.js";
import { WORKSPACE_TOOLS } from "./tools.js";
import { exportCommand, importCommand, init } from "./workspace.js";

/** The workspace itself: init, identity, status, export/import, capabilities. */
export const workspaceDomain: CommandDomain = {
  name: "workspace",
  commands: [
    init,
    status,
    whoami,
    agentAdd,
    agentList,
    agentRetire,
    agentRotate,
    roleAdd,
    roleList,
    exportCommand,
    importCommand,
    capabilities,
    storeCopy,
  ],
  tools: WORKSPACE_TOOLS,
  groups: {
    agent: "Register, list and retire agents, each with its own token (rotate one that leaked)",
    role: "Declare and list roles: standing instructions, scope, grant, WIP cap, tool profile",
    store: "Where the workspace is stored: copy it between SQLite and a shared PostgreSQL",
  },
};
