import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Session } from "../../commands/context.js";
import { os } from "../../kernel/builtins.js";
import { launchDetached } from "../../kernel/child.js";
import { EXIT_CODES, exitCodeOf, outcomeFromThrown } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import { startUiServer } from "./server.js";

const USAGE = `usage: cairn ui [--port N] [--open]

A read-only dashboard of this workspace on http://127.0.0.1 (loopback only, by design).
  --port N   listen on port N (default 4477; 0 picks a free one)
  --open     open the printed URL in the default browser
From another machine, forward the port: ssh -L 4477:127.0.0.1:4477 HOST
`;

const DEFAULT_PORT = 4477;

/** The flags, help asked for, or what is wrong with them (the word quoted: it may be pasted text). */
function parse(args: string[]): { port: number; open: boolean } | { wrong: string } | "help" {
  let port = DEFAULT_PORT;
  let open = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === "--help" || arg === "-h") return "help";
    if (arg === "--open") open = true;
    else if (arg === "--port" || arg.startsWith("--port=")) {
      const value = arg === "--port" ? args[++index] : arg.slice("--port=".length);
      if (value === undefined || !/^\d+$/.test(value) || Number(value) > 65_535)
        return {
          wrong: `--port takes a port number, 0 to 65535${value === undefined ? "" : `, not ${quoteValue(value)}`}`,
        };
      port = Number(value);
    } else return { wrong: `unknown option ${quoteValue(arg)}` };
  }
  return { port, open };
}

/**
 * What `--open` hands the browser: a file only this user can read that forwards to the URL. The
 * URL itself on a command line would put the token in every process listing (the opener's, then
 * the browser's for as long as it runs), where any user of the machine, who can reach loopback
 * too, could read it.
 */
function launchPage(url: string): { href: string; remove: () => void } {
  const dir = mkdtempSync(join(os().tmpdir(), "cairn-ui-"));
  const path = join(dir, "open.html");
  writeFileSync(
    path,
    `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${url}"><title>cairn</title><a href="${url}">Open the cairn dashboard</a>\n`,
    { mode: 0o600 },
  );
  const remove = () => rmSync(dir, { recursive: true, force: true });
  // However the process ends: a stop signal exits from main.ts before this face's own shutdown.
  process.once("exit", remove);
  return { href: pathToFileURL(path).href, remove };
}

/**
 * `cairn ui`: open the workspace read-only as the launching identity, serve it on loopback,
 * print the URL with this launch's token, and run until interrupted.
 */
export async function startUi(args: string[]): Promise<number> {
  const parsed = parse(args);
  // Help asked for is the answer (stdout, as every other command's); a wrong flag is an error.
  if (parsed === "help") {
    process.stdout.write(USAGE);
    return EXIT_CODES.ok;
  }
  if ("wrong" in parsed) {
    process.stderr.write(`cairn ui: ${parsed.wrong}\n${USAGE}`);
    return EXIT_CODES.usage;
  }
  const session = new Session({ cwd: process.cwd(), env: process.env, readOnly: true });
  try {
    await session.context();
  } catch (thrown) {
    const outcome = outcomeFromThrown(thrown);
    const why = outcome.kind === "refused" ? outcome.refusal.reason : (thrown as Error).message;
    process.stderr.write(`cairn ui: ${why}\n`);
    return exitCodeOf(outcome);
  }
  let server: Awaited<ReturnType<typeof startUiServer>>;
  try {
    server = await startUiServer(session, { port: parsed.port });
  } catch (error) {
    const busy = (error as NodeJS.ErrnoException).code === "EADDRINUSE";
    process.stderr.write(
      `cairn ui: ${busy ? `port ${parsed.port} is taken; pass --port N (or --port 0 for any free one)` : (error as Error).message}\n`,
    );
    await session.close();
    return EXIT_CODES.operational;
  }
  process.stdout.write(`cairn ui: serving this workspace read-only at\n${server.url}\n`);
  let page: ReturnType<typeof launchPage> | undefined;
  if (parsed.open) {
    const opener = process.platform === "darwin" ? "open" : "xdg-open";
    page = launchPage(server.url);
    // The browser is the user's: it outlives this server, and a foreground one (xdg-open with no
    // desktop runs the browser itself and waits for it) is neither timed out nor killed.
    void launchDetached({ argv: [opener, page.href], cwd: process.cwd() }).then((failure) => {
      if (failure !== null)
        process.stderr.write(
          `cairn ui: the browser's opener failed (${failure}); if no page opened, open the URL above\n`,
        );
    });
  }
  await new Promise<void>((resolve) => {
    process.once("SIGINT", resolve);
    process.once("SIGTERM", resolve);
  });
  await server.close();
  await session.close();
  page?.remove();
  return EXIT_CODES.ok;
}
