import { z } from "zod";
import { usageError } from "../../kernel/outcome.js";
import { machineConfig } from "../workspace/machine.js";

/** One operator-pinned tool: `os-<bin>-<args>`, whose caller may only append arguments. */
export const PinnedTool = z.object({
  bin: z.string(),
  args: z.array(z.string()).default([]),
  description: z.string().min(1),
});

/**
 * `[os]` in the machine's cairn.toml (CAIRN_HOME): off, and empty, by default. `confirm` adds
 * to the built-in confirm list (shells, destructive binaries, wrappers); it never shortens it.
 * Allow entries match from the first argument; deny and confirm entries wherever their words
 * occur in order (see policy.ts).
 */
export const OsConfig = z.object({
  enabled: z.boolean().default(false),
  allow: z.array(z.string()).default([]),
  deny: z.array(z.string()).default([]),
  confirm: z.array(z.string()).default([]),
  timeout_seconds: z.number().positive().max(3_600).default(60),
  tool: z.array(PinnedTool).default([]),
});
export type OsConfig = z.infer<typeof OsConfig>;

export interface MachineOs {
  os: OsConfig;
  /** The file it was read from, as refusals name it. */
  path: string;
  /** On only when enabled with a non-empty allow list. */
  active: boolean;
}

export function osConfigOf(env: NodeJS.ProcessEnv): MachineOs {
  const machine = machineConfig(env);
  const parsed = OsConfig.safeParse(machine.config.os ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `os.${i.path.join(".")}: ${i.message}`).join("; ");
    throw usageError(`${machine.path}: ${issues}`, "fix the [os] section");
  }
  const os = parsed.data;
  return { os, path: machine.path, active: os.enabled && os.allow.length > 0 };
}
