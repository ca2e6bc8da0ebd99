import { PROFILES, type Profile } from "../domains/workspace/config.js";
import { TOOLS } from "./registry.js";
import type { ToolSpec } from "./tool-spec.js";

/**
 * The MCP catalog, kept by hand in each domain's `tools.ts`. Every tool schema costs context in
 * every agent, so only the verbs a working agent uses between claim and done get a slot;
 * everything else goes through `cli`. Descriptions are the agent's manual: they teach when and
 * how, in as few words as work.
 */
export { PROFILES, type Profile, TOOLS, type ToolSpec };

export function toolsForProfile(profile: Profile): ToolSpec[] {
  return TOOLS.filter((tool) => tool.profiles.includes(profile));
}
