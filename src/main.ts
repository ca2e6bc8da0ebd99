// First: every schema built after this import is jitless (see the module).
import "./kernel/zod-jitless.js";
import { Session } from "./commands/context.js";
import { PROFILES, type Profile } from "./domains/workspace/config.js";
import { EXIT_CODES, exitCodeOf, outcomeFromThrown } from "./kernel/outcome.js";
import { quoteValue } from "./kernel/text.js";

const MCP_USAGE = "usage: cairn mcp [--profile worker|planner|operator|all]\n";
const MCP_HELP = `${MCP_USAGE}
Serve this workspace as MCP tools, resources and prompts over stdio, acting as the agent whose
token is in CAIRN_AGENT (unset: the workspace owner; empty or unknown: refused, exit 3).
  --profile P   the tools to list (default: the profile of the agent's role, else worker);
                it never widens what the role may run
Start it from an MCP client's configuration, one server per agent, each with its own token.
`;

/** `cairn help mcp|ui|daemon` answers as `cairn mcp|ui|daemon --help` does: they are no commander commands. */
const OWN_PARSERS = ["mcp", "ui", "daemon"];

/** The profile asked for, help, or what is wrong with the flags (the word quoted: it may be pasted text). */
function parseMcpArgs(args: string[]): Profile | undefined | "help" | { wrong: string } {
  if (args.includes("--help") || args.includes("-h")) return "help";
  let profile: Profile | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    const value = arg.startsWith("--profile=")
      ? arg.slice("--profile=".length)
      : arg === "--profile"
        ? args[++index]
        : null;
    if (value === null) return { wrong: `unknown option ${quoteValue(arg)}` };
    if (value === undefined) return { wrong: `--profile needs a value: ${PROFILE_CHOICES}` };
    if (!PROFILES.includes(value as Profile))
      return { wrong: `no profile ${quoteValue(value)}; profiles are ${PROFILES.join(", ")}` };
    profile = value as Profile;
  }
  return profile;
}

const PROFILE_CHOICES = `${PROFILES.slice(0, -1).join(", ")} or ${PROFILES.at(-1)}`;

/**
 * `cairn mcp` starts only after the caller's identity is settled: a bad token refuses to start
 * (exit 3) rather than serving as someone else. A damaged database does not stop the server:
 * every call then reports it, and the server recovers if the file is restored.
 */
async function startMcp(args: string[]): Promise<number> {
  const requested = parseMcpArgs(args);
  if (requested === "help") {
    process.stdout.write(MCP_HELP);
    return EXIT_CODES.ok;
  }
  if (typeof requested === "object") {
    process.stderr.write(`cairn mcp: ${requested.wrong}\n${MCP_USAGE}`);
    return EXIT_CODES.usage;
  }
  const session = new Session({ cwd: process.cwd(), env: process.env, profile: requested });
  if (process.env.CAIRN_AGENT === undefined) {
    // Serving as the owner is a choice worth seeing: an agent's config that lost its token lands here.
    process.stderr.write("cairn mcp: CAIRN_AGENT is not set: serving as the workspace owner\n");
  }
  let profile: Profile = requested ?? "worker";
  try {
    profile = (await session.context()).profile;
  } catch (thrown) {
    const outcome = outcomeFromThrown(thrown);
    const code = exitCodeOf(outcome);
    if (outcome.kind === "refused") {
      process.stderr.write(
        `cairn mcp: refused to start: ${outcome.refusal.reason}\nnext: ${outcome.refusal.next}\n`,
      );
      return code;
    }
    if (outcome.kind === "error" && outcome.error.errorKind !== "operational") {
      process.stderr.write(
        `cairn mcp: ${outcome.error.message}\n${outcome.error.hint ? `next: ${outcome.error.hint}\n` : ""}`,
      );
      return code;
    }
    process.stderr.write(
      `cairn mcp: serving, but the workspace cannot be opened: ${(thrown as Error).message}\n`,
    );
  }
  const { serveStdio } = await import("./faces/mcp/server.js");
  await serveStdio(session, profile);
  // The client is gone: whatever its calls still run is stopped, and the server exits now.
  await killChildren();
  await stdoutWritten();
  process.exit(EXIT_CODES.ok);
}

/** How long an exiting server waits for a client to read the answers it still holds. */
const FLUSH_GRACE_MS = 30_000;

/**
 * The end of input is the client's last word, not a wish to lose the answers still on their way:
 * a client that writes its requests, closes its input and then reads (`printf … | cairn mcp`)
 * got its last answer cut at the pipe's 64 KiB, since process.exit drops what stdout still
 * queues. Settles once that is written, the reader is gone, or after FLUSH_GRACE_MS.
 */
function stdoutWritten(): Promise<void> {
  const stdout = process.stdout;
  if (stdout.writableLength === 0 || stdout.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, FLUSH_GRACE_MS);
    timer.unref();
    const settle = () => {
      clearTimeout(timer);
      resolve();
    };
    stdout.once("close", settle);
    stdout.once("error", settle);
    // Written after everything queued before it: its callback runs once all of that is out.
    stdout.write("", settle);
  });
}

async function startCli(argv: string[]): Promise<number> {
  // A CLI call is over once nothing is left to run. Exiting then, rather than having node free
  // its heap piece by piece on the way out, is ~3 ms of a `cairn status`; beforeExit fires only
  // when the event loop is empty, so nothing still pending is cut short.
  process.once("beforeExit", () => process.exit());
  const { runCli } = await import("./faces/cli/program.js");
  const { fdOutput } = await import("./faces/cli/fd-output.js");
  const session = new Session({ cwd: process.cwd(), env: process.env });
  try {
    return await runCli(argv, session, fdOutput());
  } finally {
    await session.close();
  }
}

async function startDaemonProcess(args: string[]): Promise<number> {
  const { startDaemon } = await import("./commands/agents/daemon-entry.js");
  const session = new Session({ cwd: process.cwd(), env: process.env });
  try {
    return await startDaemon(session, args);
  } finally {
    await session.close();
  }
}

/**
 * Kill every process group cairn started. The child module is loaded here rather than at start
 * (it brings in node:child_process and its network modules): a call that never loaded it
 * started nothing, and loading it now finds nothing to kill.
 */
async function killChildren(): Promise<void> {
  const { stopEverything } = await import("./kernel/child.js");
  // A supervised agent run ends itself (interrupted, its token retired, its leftovers killed).
  await stopEverything(STOP_GRACE_MS);
}

/** How long a stopped process waits for what it supervised to record its end. */
const STOP_GRACE_MS = 5_000;

/**
 * A stop signal takes down every process group cairn started (verify commands, shortcuts, agent
 * runs) before it exits: nothing it ran is left behind with no deadline. The CLI handles Ctrl-C
 * itself, per call, as a cancel that records nothing; a server has no call to cancel, so Ctrl-C
 * stops it like SIGTERM.
 */
function stopChildrenOnSignals(face: "server" | "cli"): void {
  const signals = [
    ["SIGTERM", 15],
    ["SIGHUP", 1],
    ...(face === "server" ? ([["SIGINT", 2]] as const) : []),
  ] as const;
  for (const [signal, number] of signals) {
    process.once(signal, () => {
      void killChildren().finally(() => process.exit(128 + number));
    });
  }
}

async function main(): Promise<void> {
  const given = process.argv.slice(2);
  const argv =
    given[0] === "help" && given.length === 2 && OWN_PARSERS.includes(given[1] as string)
      ? [given[1] as string, "--help"]
      : given;
  // The daemon supervises its runs itself: SIGTERM stops them cleanly, SIGHUP reloads.
  if (argv[0] !== "daemon") stopChildrenOnSignals(argv[0] === "mcp" ? "server" : "cli");
  const code =
    argv[0] === "mcp"
      ? await startMcp(argv.slice(1))
      : argv[0] === "ui"
        ? await (await import("./faces/ui/start.js")).startUi(argv.slice(1))
        : argv[0] === "daemon"
          ? await startDaemonProcess(argv.slice(1))
          : await startCli(argv);
  process.exitCode = code;
}

main().catch((error: unknown) => {
  process.stderr.write(
    `cairn: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = EXIT_CODES.operational;
});
