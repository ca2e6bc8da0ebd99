import { z } from "zod";
import { osConfigOf } from "../../domains/os/config.js";
import { machineConfig } from "../../domains/workspace/machine.js";
import { cutText } from "../../kernel/text.js";
import { MAX_TOOL_NAME, toolName, uniqueNames } from "../../kernel/tool-names.js";
import type { CatalogSource, CatalogTool } from "../catalog.js";
import { osList, osRun } from "./commands.js";

/** What a model reads from a run: the output, then how it ended when that was not a clean exit. */
function runText(output: Record<string, unknown>): string {
  const stdout = String(output.stdout ?? "");
  const stderr = String(output.stderr ?? "");
  const argv = output.argv as string[];
  const bin = argv[0] ?? "";
  if (output.timed_out)
    return `\`${bin}\` was still running at its deadline and was killed.\n${stdout}${stderr}`;
  if (output.exit_code === 0) return stdout || `\`${bin}\` exited 0 and printed nothing.`;
  return `\`${bin}\` exited ${output.exit_code}${output.error ? ` (${output.error})` : ""}.\n${stderr || stdout}`;
}

/**
 * OS tools exist only while the machine's `[os]` is enabled with a non-empty allow list: then
 * `os_list`, `os_run`, and one `os-<bin>-<args>` per `[[os.tool]]` (its leading arguments fixed
 * by the operator; the caller may only append).
 */
export const osCatalog: CatalogSource = {
  async build(ctx) {
    const { os, active } = osConfigOf(ctx.env);
    if (!active) return { tools: [], warnings: [] };
    const warnings: string[] = [];
    if (os.allow.some((entry) => entry.trim().split(/\s+/)[0] === "*")) {
      warnings.push(
        "[os] allow holds `*`: every binary on PATH may run (shells and wrappers still need a person)",
      );
    }
    const pinned = uniqueNames(
      os.tool,
      (tool) => toolName("os-", [tool.bin, ...tool.args].join("-"), MAX_TOOL_NAME),
      (tool) => JSON.stringify([tool.bin, ...tool.args]),
      MAX_TOOL_NAME,
    ).map(
      ({ item: tool, name }): CatalogTool => ({
        name,
        title: cutText(`Run ${[tool.bin, ...tool.args].join(" ")}`, 80),
        description: tool.description,
        input: z.object({
          args: z
            .array(z.string())
            .default([])
            .describe(`appended after \`${[tool.bin, ...tool.args].join(" ")}\``),
        }),
        command: "os run",
        commandInput: (args) => ({ bin: tool.bin, args: [...tool.args, ...((args.args as string[]) ?? [])] }),
        text: runText,
      }),
    );
    const generic: CatalogTool[] = [
      {
        name: "os_list",
        title: "Allowed OS commands",
        description:
          "What this machine's operator allows you to run with os_run: allowed binaries (some only with given leading arguments), denied ones, and those only a person may run. Call it before os_run, or after a refusal.",
        input: osList.input,
        command: "os list",
        commandInput: (args) => args,
        idempotent: true,
      },
      {
        name: "os_run",
        title: "Run an allowed OS command",
        description:
          "Run an allowlisted binary by bare name with arguments (argv, never a shell: no pipes, globs or $VARS). Output is capped at 8 KB. A refusal names the machine's configuration: do not retry it; see os_list.",
        input: osRun.input,
        command: "os run",
        commandInput: (args) => args,
        text: runText,
      },
    ];
    return { tools: [...generic, ...pinned], warnings };
  },
  watched(ctx) {
    return [machineConfig(ctx.env).path];
  },
};
