import { maskSecretsIn } from "../../kernel/secret-mask.js";
import { plainOrQuoted, quoteValue } from "../../kernel/text.js";
import type { LoadedAgent } from "./manifest.js";
import type { Preflight } from "./manifest-schema.js";

/**
 * Split a command string into argv: whitespace separates, single and double quotes group, and
 * nothing else is interpreted (no variables, globs or operators: it never reaches a shell).
 */
export function splitArgv(command: string): string[] {
  const words: string[] = [];
  let word = "";
  let quote: "'" | '"' | undefined;
  let started = false;
  for (const char of command) {
    if (quote) {
      if (char === quote) quote = undefined;
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      started = true;
    } else if (/\s/.test(char)) {
      if (started || word) words.push(word);
      word = "";
      started = false;
    } else {
      word += char;
    }
  }
  if (started || word) words.push(word);
  return words;
}

export function remediationArgv(preflight: Preflight): string[] | undefined {
  const remediation = preflight.remediation;
  if (remediation === undefined) return undefined;
  const argv = typeof remediation === "string" ? splitArgv(remediation) : remediation;
  return argv.length > 0 && argv[0] !== "" ? argv : undefined;
}

/** Run the agent's preflights in order; the first failure is the reason the run is skipped. */
export async function runPreflights(
  agent: LoadedAgent,
  cwd: string,
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Promise<string | undefined> {
  for (const [index, preflight] of agent.manifest.preflight.entries()) {
    const label = `preflight ${index + 1}`;
    if (!preflight.command) {
      return `${label} uses dotagent plugin ${JSON.stringify(preflight.plugin ?? "?")}, which cairn does not run: give it a \`command\``;
    }
    let stderr = "";
    // Loaded when a preflight runs: the catalog that `status` reads only needs remediationArgv.
    const { runChild } = await import("../../kernel/child.js");
    const result = await runChild({
      argv: [preflight.command, ...preflight.args],
      cwd,
      env,
      timeoutMs: preflight.timeout_seconds * 1000,
      signal,
      // As the run's own command is: a sweep from any checkout of the board ends it (runner.ts).
      marked: true,
      onOutput: (chunk, stream) => {
        if (stream === "stderr" && stderr.length < 2000) stderr += chunk.toString("utf8");
      },
    });
    if (result.exitCode !== 0) {
      const why = result.error ?? `exited ${result.exitCode}`;
      const fix = remediationArgv(preflight) ? `; remediation: remediate tool #${index + 1}` : "";
      // Its stderr quoted on one line: this reason is what a model reads of the skipped run (the
      // run tool's error, agents_status), and a check printing "cairn: …" must not speak as cairn.
      // Masked as a run's log is (agent tokens, and the credentials of the environment it ran
      // with): the reason is kept on the run's row, where any agent reads it (agents_inspect).
      const tail = maskSecretsIn(stderr.trim(), env);
      const said = tail ? `: ${quoteValue(tail.slice(-300), 300)}` : "";
      return `${label} (${plainOrQuoted(preflight.command, 100)}) failed: ${why}${said}${fix}`;
    }
  }
  return undefined;
}
