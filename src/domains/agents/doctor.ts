import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { CairnError, RefusedError } from "../../kernel/outcome.js";
import type { Store } from "../../store/store.js";
import type { Workspace } from "../workspace/discover.js";
import type { AgentCatalog } from "./catalog.js";
import { checkIdentityEnabled } from "./identity-enabling.js";
import type { LoadedAgent } from "./manifest.js";
import { remediationArgv } from "./preflight.js";

export interface Finding {
  level: "error" | "warning";
  file: string;
  agent: string | null;
  message: string;
}

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/** Where `command` would be found for this agent (its working dir for a path, else PATH). */
export function whichCommand(command: string, cwd: string, env: NodeJS.ProcessEnv): string | undefined {
  if (command.includes("/")) {
    const path = isAbsolute(command) ? command : resolve(cwd, command);
    return executable(path) ? path : undefined;
  }
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir && executable(join(dir, command))) return join(dir, command);
  }
  return undefined;
}

function agentFindings(agent: LoadedAgent, env: NodeJS.ProcessEnv): Finding[] {
  const findings: Finding[] = [];
  const add = (level: Finding["level"], message: string) =>
    findings.push({ level, file: agent.path, agent: agent.name, message });
  const cwd = resolve(agent.dir, agent.manifest.run.working_dir ?? ".");
  const searchEnv = agent.manifest.env.inherit
    ? { ...env, ...agent.manifest.env.extra }
    : agent.manifest.env.extra;
  if (!whichCommand(agent.manifest.run.command, cwd, searchEnv)) {
    add(
      "error",
      `run.command ${JSON.stringify(agent.manifest.run.command)} is not an executable on PATH or in ${cwd}`,
    );
  }
  for (const key of agent.unknownKeys) add("warning", `unknown key ${key} (kept, not read: a typo?)`);
  for (const section of agent.foreignSections)
    add("warning", `[${section}] is dotagent's and cairn does not act on it`);
  if (agent.manifest.run.protocol)
    add(
      "warning",
      `run.protocol ${JSON.stringify(agent.manifest.run.protocol)} is not supported: the agent runs as a plain command`,
    );
  agent.manifest.preflight.forEach((preflight, index) => {
    const label = `preflight ${index + 1}`;
    if (!preflight.command) {
      add(
        "error",
        `${label} names dotagent plugin ${JSON.stringify(preflight.plugin ?? "")} and no command: every run will be skipped`,
      );
    } else if (!whichCommand(preflight.command, cwd, searchEnv)) {
      add("error", `${label} command ${JSON.stringify(preflight.command)} is not on PATH`);
    }
    const argv = remediationArgv(preflight);
    if (preflight.remediation !== undefined && !argv)
      add("warning", `${label} remediation is empty: no tool is published for it`);
    if (argv && !whichCommand(argv[0] as string, cwd, searchEnv))
      add("error", `${label} remediation ${JSON.stringify(argv[0])} is not on PATH`);
  });
  if (!agent.manifest.agent.monitor && agent.schedules.length > 0) {
    add(
      "warning",
      "monitor = false: the daemon never dispatches its schedules and status does not list them",
    );
  }
  return findings;
}

/** Everything wrong or doubtful about the manifests, for a person to fix; reads only. */
export async function doctor(
  catalog: AgentCatalog,
  store: Store,
  env: NodeJS.ProcessEnv,
  workspace: Workspace,
): Promise<Finding[]> {
  const findings: Finding[] = catalog.problems.map((problem) => ({
    level: "error",
    file: problem.file,
    agent: null,
    message: problem.reason,
  }));
  for (const duplicate of catalog.duplicates) {
    findings.push({
      level: "error",
      file: duplicate.dropped,
      agent: duplicate.name,
      message: `agent name ${JSON.stringify(duplicate.name)} is already taken by ${duplicate.kept}: this one is ignored`,
    });
  }
  for (const collision of catalog.collisions) {
    findings.push({
      level: "error",
      file: collision.dropped,
      agent: null,
      message: `tool ${collision.tool} collides with ${collision.kept} after sanitizing: ${collision.kept} keeps it, ${collision.dropped} is dropped`,
    });
  }
  for (const agent of catalog.agents) findings.push(...agentFindings(agent, env));
  const identities = catalog.agents.filter((agent) => agent.manifest.cairn.identity);
  for (const agent of identities) {
    try {
      checkIdentityEnabled(agent, workspace, env);
    } catch (error) {
      // A broken [agents] section in the machine's file is reported too, not thrown: doctor
      // says what is wrong with every manifest it can.
      if (!(error instanceof RefusedError || error instanceof CairnError)) throw error;
      findings.push({
        level: "error",
        file: agent.path,
        agent: agent.name,
        message:
          error instanceof RefusedError
            ? `${error.refusal.reason}: its runs are refused (${error.refusal.next})`
            : `${error.message}: its runs are refused`,
      });
    }
  }
  await store.read(async (tx) => {
    for (const agent of identities) {
      const name = agent.manifest.cairn.identity as string;
      const record = await tx.agents.byName(name);
      if (!record || record.retiredAt) {
        findings.push({
          level: "error",
          file: agent.path,
          agent: agent.name,
          message: `[cairn] identity ${JSON.stringify(name)} ${record ? "is retired" : "is not a cairn agent"}: runs will be skipped`,
        });
      }
    }
  });
  return findings;
}
