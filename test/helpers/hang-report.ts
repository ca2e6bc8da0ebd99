/**
 * What a cairn process that should have ended was doing: a test that times out says only that it
 * waited, and a hang seen once in many runs cannot be explained afterwards. The process is started
 * with Node's diagnostic report on a signal; when it overstays, this asks it for one and gathers
 * its JavaScript stack, what its event loop still waits on (sockets, timers, child processes), its
 * descendants and, on PostgreSQL, what the server's sessions are doing.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

const REPORT_SIGNAL = "SIGUSR2";

export interface HangReporting {
  /** Node flags that make the process write a report when sent the report signal. */
  nodeFlags: string[];
  /** Ask the process for its report, describe it with what surrounds it, then kill it and all it started. */
  describeAndKill(pid: number): Promise<string>;
}

export function hangReporting(pgUrl: string | null): HangReporting {
  // Named now, made only when a report is asked for: a process that ends in time leaves nothing.
  const dir = join(tmpdir(), `cairn-hang-${process.pid}-${randomBytes(6).toString("hex")}`);
  return {
    nodeFlags: ["--report-on-signal", `--report-signal=${REPORT_SIGNAL}`, `--report-directory=${dir}`],
    async describeAndKill(pid) {
      const family = familyOf(pid);
      mkdirSync(dir, { recursive: true });
      try {
        const parts = [`process ${pid} overstayed`, family.shown];
        parts.push(await reportOf(pid, dir));
        if (pgUrl) parts.push(await sessions(pgUrl));
        return parts.join("\n\n");
      } finally {
        for (const member of family.pids) {
          try {
            process.kill(member, "SIGKILL");
          } catch {
            // Gone already.
          }
        }
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

async function reportOf(pid: number, dir: string): Promise<string> {
  try {
    process.kill(pid, REPORT_SIGNAL);
  } catch (error) {
    return `no report: ${(error as Error).message}`;
  }
  // The report is written from the process's own event loop (a signal watcher): one that is
  // busy in a synchronous step writes none, and that is an answer too.
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    const file = readdirSync(dir).find((name) => name.endsWith(".json"));
    if (file) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      return summarise(readFileSync(join(dir, file), "utf8"));
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return "no report within 5 s: the event loop is not turning (a synchronous step, or a blocked write)";
}

interface Report {
  javascriptStack?: { message?: string; stack?: string[] };
  libuv?: { type: string; is_active?: boolean; is_referenced?: boolean; [key: string]: unknown }[];
}

function summarise(text: string): string {
  let report: Report;
  try {
    report = JSON.parse(text) as Report;
  } catch {
    return `an unreadable report: ${text.slice(0, 2_000)}`;
  }
  const stack = [report.javascriptStack?.message ?? "", ...(report.javascriptStack?.stack ?? [])].join(
    "\n  ",
  );
  const waits = (report.libuv ?? [])
    .filter((handle) => handle.is_active && handle.is_referenced !== false)
    .map(
      ({ type, is_active: _a, is_referenced: _r, address: _ad, ...rest }) =>
        `${type} ${JSON.stringify(rest)}`,
    );
  return `JavaScript stack:\n  ${stack}\n\nthe event loop waits on:\n  ${waits.join("\n  ") || "(nothing)"}`;
}

/** The process and everything it started, as `ps` shows them. */
function familyOf(pid: number): { pids: number[]; shown: string } {
  const ps = spawnSync("ps", ["-eo", "pid=,ppid=,stat=,etime=,args="], { encoding: "utf8" });
  if (ps.error || ps.status !== 0)
    return { pids: [pid], shown: `its processes: not listed (ps: ${ps.error?.message ?? ps.stderr})` };
  const rows = ps.stdout
    .split("\n")
    .map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/))
    .filter((match): match is RegExpMatchArray => match !== null);
  const family = new Set([pid]);
  for (let grown = true; grown; ) {
    grown = false;
    for (const [, child, parent] of rows) {
      if (family.has(Number(parent)) && !family.has(Number(child))) {
        family.add(Number(child));
        grown = true;
      }
    }
  }
  const shown = rows.filter(([, child]) => family.has(Number(child))).map(([line]) => line);
  return {
    pids: [...family],
    shown: `its processes (pid ppid stat elapsed args):\n  ${shown.join("\n  ") || "(gone)"}`,
  };
}

/** Every other session of the test's PostgreSQL server: which waits, on what, running what. */
async function sessions(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    const { rows } = await client.query(
      `SELECT pid, state, wait_event_type, wait_event, now() - xact_start AS in_transaction,
              left(query, 160) AS query
         FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'`,
    );
    return `PostgreSQL sessions:\n  ${rows.map((row) => JSON.stringify(row)).join("\n  ") || "(none)"}`;
  } catch (error) {
    return `PostgreSQL sessions: not read (${(error as Error).message})`;
  } finally {
    await client.end().catch(() => {});
  }
}
