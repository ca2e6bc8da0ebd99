import { appendFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Session } from "../../src/commands/context.js";
import { runCli } from "../../src/faces/cli/program.js";
import { shellAgent, writeAgent } from "./agents.js";
import { contractWith, evaluatorToml, gitWorkspace, nodeArgv, writePack } from "./goals.js";
import { cleanEnv } from "./workspace.js";

/**
 * A workspace with something to show: tasks in every state (verified criteria with evidence,
 * a claimed-only tick, dependencies, a blocked task, a question, a stale lease), agents, and a
 * goal whose run has attempts kept, reverted and in review. Seeded through the CLI face run
 * in-process (the same parse and dispatch as `cairn`, without a process per command).
 */

export interface Seeded {
  dir: string;
  cleanup: () => void;
  goal: string;
  run: string;
  /** The task whose criterion cairn verified, with its evidence. */
  verifiedTask: string;
  cli: (args: string[], as?: string) => Promise<Record<string, unknown>>;
  close: () => Promise<void>;
}

export const HOSTILE_TITLE = '<img src=x onerror="window.__pwned=1"> fix T-1 & <b>bold</b>';

export async function seedWorkspace(options: { goals?: boolean } = {}): Promise<Seeded> {
  const ws = gitWorkspace({ "score.txt": "6.0\n" });
  const { dir } = ws;
  const sessions = new Map<string, Session>();
  const tokens = new Map<string, string>();
  const sessionOf = (as: string) => {
    let session = sessions.get(as);
    if (!session) {
      const token = tokens.get(as);
      session = new Session({ cwd: dir, env: cleanEnv(token ? { CAIRN_AGENT: token } : {}) });
      sessions.set(as, session);
    }
    return session;
  };
  const cli = async (args: string[], as = "owner") => {
    let out = "";
    let err = "";
    const code = await runCli([...args, "--json"], sessionOf(as), {
      stdout: (text) => {
        out += text;
      },
      stderr: (text) => {
        err += text;
      },
    });
    if (code !== 0 && code !== 3) throw new Error(`cairn ${args.join(" ")} failed (${code}): ${err}${out}`);
    return JSON.parse(out) as Record<string, unknown>;
  };
  for (const name of ["ada", "bo"]) {
    const added = (await cli(["agent", "add", name, "--role", "builder"])) as { token: string };
    tokens.set(name, added.token);
  }
  // Local agents: one run once by hand (a triggered run, never a window), one on an interval never run.
  writeAgent(
    dir,
    "notes-sync",
    shellAgent("notes-sync", "echo synced", {
      rest: '[[schedules]]\nid = "hourly"\ntype = "interval"\ninterval_minutes = 60',
    }),
  );
  writeAgent(
    dir,
    "pulse",
    shellAgent("pulse", "exit 0", {
      rest: '[[schedules]]\nid = "every-30m"\ntype = "interval"\ninterval_minutes = 30',
    }),
  );
  await cli(["agents", "run", "notes-sync"]);
  const ok = nodeArgv("console.log('all 12 checks passed')");
  await cli([
    "task",
    "add",
    "Ship the search index",
    "--so-that",
    "agents find notes fast",
    "--priority",
    "must",
  ]);
  await cli(["task", "add", "Tokenise notes", "--parent", "T-1", "--priority", "must"]);
  await cli(["task", "criterion", "T-2", "--text", "unit tests pass", ...ok.flatMap((w) => ["--verify", w])]);
  await cli(["task", "criterion", "T-2", "--text", "reviewed by a person"]);
  await cli([
    "task",
    "add",
    "Rank with bm25",
    "--parent",
    "T-1",
    "--depends-on",
    "T-2",
    "--criteria",
    "ranking documented",
  ]);
  await cli([
    "task",
    "add",
    HOSTILE_TITLE,
    "--labels",
    "ui",
    "--context",
    "Mentions T-2 and G-1 in passing.",
  ]);
  await cli(["task", "add", "Write the release notes", "--priority", "could"]);
  await cli(["task", "add", "Benchmark recall", "--priority", "should"]);
  await cli(["task", "claim", "T-2"], "ada");
  await cli(["task", "check", "T-2", "--n", "1"], "ada");
  await cli(["task", "check", "T-2", "--n", "2"], "ada");
  await cli(["task", "claim", "T-6"], "bo");
  // A check bo adds to the owner's task it holds: it passes, on its holder's terms alone.
  await cli(
    ["task", "criterion", "T-6", "--text", "bench runs", ...ok.flatMap((w) => ["--verify", w])],
    "bo",
  );
  await cli(["task", "check", "T-6", "--n", "1"], "bo");
  // The rules change while T-2 and T-6 are claimed, first seen in a call of bo's: their pages say so.
  appendFileSync(
    join(dir, ".cairn", "cairn.toml"),
    '\n[roles.reviewer]\nsummary = "reads and reports"\ngrant = "ro"\n',
  );
  await cli(["whoami"], "bo");
  await cli(["task", "block", "T-5", "--reason", "waiting for the 1.0 changelog"]);
  // Asked by T-3's author (the owner): only its author's (or, held, its holder's) question blocks it.
  await cli(["ask", "T-3", "Which tokenizer should rank use?"]);

  const seeded = {
    dir,
    cleanup: ws.cleanup,
    goal: "",
    run: "",
    verifiedTask: "T-2",
    cli,
    async close() {
      for (const session of sessions.values()) await session.close();
    },
  };
  if (options.goals === false) return seeded;

  // A goal measured by a noisy evaluator: three repeats, a value read from the checkout.
  const counter = join(tmpdir(), `cairn-ui-seed-${process.pid}-${Date.now()}`);
  writeFileSync(counter, "0");
  seeded.cleanup = () => {
    ws.cleanup();
    rmSync(counter, { force: true });
  };
  // awk, not node: a noisy evaluator is sampled until its noise is measured (some twenty runs an
  // attempt, base and attempt sides), and a node start costs ~125 ms of the seed each time.
  const score = [
    "awk",
    "-v",
    `counter=${counter}`,
    'BEGIN { getline n < counter; close(counter); print n + 1 > counter; close(counter); getline s < "score.txt"; split("0 0.1 -0.1", d, " "); printf "score: %.2f\\n", s + d[n % 3 + 1] }',
  ];
  const goal = contractWith(dir, [
    { name: "score", direction: "higher", threshold: 5 },
    { name: "docs", manual: true, threshold: 0.8, description: "a person finds the docs clear" },
  ]);
  await cli(["goal", "plan", goal]);
  writePack(
    dir,
    "seed",
    evaluatorToml({
      name: "score-eval",
      proof: "score",
      argv: score,
      read: "regex",
      pattern: "score: ([0-9.]+)",
      repeats: 3,
    }),
  );
  const run = ((await cli(["run", "freeze", goal])) as { run: { id: string } }).run.id;
  for (const value of ["6.0", "5.2", "6.8", "4.1", "7.4", "7.45"]) {
    const attempt = (
      (await cli(["attempt", "open", run, "--milestone", "M-1"])) as { attempt: { id: string } }
    ).attempt.id;
    writeFileSync(join(dir, "score.txt"), `${value}\n`);
    await cli(["attempt", "eval", attempt]);
    const decided = (await cli(["attempt", "decide", attempt])) as { verdict: string };
    if (decided.verdict === "revert") await cli(["attempt", "revert", attempt, "--confirm"]);
  }
  // The docs milestone has only a manual proof: a self-report alone reaches review, never keep.
  const judged = ((await cli(["attempt", "open", run, "--milestone", "M-2"])) as { attempt: { id: string } })
    .attempt.id;
  writeFileSync(join(dir, "score.txt"), "7.5\n");
  await cli(["attempt", "eval", judged]);
  // Reported by an agent: a self-report (the owner's report would be a person's judgment, a keep).
  await cli(["attempt", "report", judged, "--scores", '{"docs":0.9}'], "ada");
  await cli(["attempt", "decide", judged]);
  return { ...seeded, goal, run };
}
