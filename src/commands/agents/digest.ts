import { z } from "zod";
import { agentCatalog, findAgent } from "../../domains/agents/catalog.js";
import {
  agentDigest,
  enabledIdentities,
  enableLine,
  needsEnabling,
} from "../../domains/agents/identity-enabling.js";
import { defineCommand } from "../define.js";

export const agentsDigest = defineCommand({
  name: "agents digest",
  summary:
    "A local agent's folder digest, and the line that lets a project's manifest act as its [cairn] identity",
  effect: "read",
  positional: ["agent"],
  input: z.object({
    agent: z.string().min(1).max(200).describe("the agent's name (or its run-<name> tool name)"),
  }),
  output: z.object({
    agent: z.string(),
    dir: z.string(),
    manifest_path: z.string(),
    identity: z.string().nullable(),
    digest: z.string(),
    files: z.array(z.object({ path: z.string(), sha256: z.string(), size: z.number() })),
    truncated: z.boolean(),
    needs_enabling: z
      .boolean()
      .describe("a project's manifest naming an identity: it acts as it only once enabled"),
    enabled: z.boolean().describe("the machine's [agents.identities] names this agent at this digest"),
    enable_line: z.string(),
  }),
  async handler(input, ctx) {
    const agent = findAgent(agentCatalog(ctx.workspace, ctx.env), input.agent);
    const digest = agentDigest(agent, ctx.workspace);
    return {
      agent: agent.name,
      dir: digest.dir,
      manifest_path: agent.path,
      identity: agent.manifest.cairn.identity ?? null,
      digest: digest.digest,
      files: digest.files,
      truncated: digest.truncated,
      needs_enabling: needsEnabling(agent, ctx.workspace, ctx.env),
      enabled: !digest.truncated && (enabledIdentities(ctx.env)[agent.name] ?? []).includes(digest.digest),
      enable_line: enableLine(agent.name, digest.digest),
    };
  },
  render: (out) =>
    [
      `${out.agent}: ${out.digest} (${out.files.length} files in ${out.dir})`,
      ...(!out.needs_enabling
        ? [
            out.identity === null
              ? "It names no [cairn] identity: nothing to enable."
              : "It is the machine's own manifest (CAIRN_HOME or dotagent's folder): it acts as its identity as it is.",
          ]
        : out.truncated
          ? [
              "The digest does not cover every file (over its bounds, a file it cannot read or with a second hard link, or a link into the project or to a folder it passes over): it never acts as its identity, whatever cairn.toml says.",
            ]
          : out.enabled
            ? [`Enabled: it acts as ${out.identity} at this digest.`]
            : [
                `To let it act as ${out.identity}, review the folder and add under [agents.identities] in CAIRN_HOME/cairn.toml (the machine's configuration):`,
                `  ${out.enable_line}`,
                "Its command runs as that identity's child; what it reads from the project outside its folder is the project's as it is then.",
              ]),
    ].join("\n"),
});
