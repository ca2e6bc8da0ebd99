import { spawn } from "node:child_process";
import { mkdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { arrange, CAIRN_BIN, cairn, cleanEnv, runSync, scratchDir } from "./workspace.js";

/** An empty git repository in a scratch folder, ready to commit to (a committer named, no signing). */
export function gitRepo(prefix: string, ...initArgs: string[]): { dir: string; cleanup: () => void } {
  const scratch = scratchDir(prefix);
  runSync("git", ["init", "-q", ...initArgs], scratch.dir);
  runSync("git", ["config", "user.name", "cairn test"], scratch.dir);
  runSync("git", ["config", "user.email", "test@cairn.invalid"], scratch.dir);
  runSync("git", ["config", "commit.gpgsign", "false"], scratch.dir);
  return scratch;
}

/** A tiny git repository with a cairn workspace at its root: the ground attempts stand on. */
export function gitWorkspace(files: Record<string, string> = {}): { dir: string; cleanup: () => void } {
  const scratch = gitRepo("cairn-goals-");
  const { dir } = scratch;
  for (const [path, text] of Object.entries({ "README.md": "fixture\n", ...files }))
    writeFileSync(join(dir, path), text);
  runSync("git", ["add", "-A"], dir);
  runSync("git", ["commit", "-qm", "base"], dir);
  const init = arrange(dir, ["init"]);
  if (init.code !== 0) throw new Error(`cairn init failed: ${init.stderr}`);
  return scratch;
}

/**
 * Makes the checkout's index say `file` holds what `claimed` holds, with the stat of the file as
 * it is: git then takes the file for that content without reading it. Plain git does it: a clean
 * filter for one `add`, gone afterwards. The file's time is put back first, so that git does not
 * re-read it as racily clean; its entry is made afresh, since git, comparing times to the second
 * here, could take a file touched within the second of its last entry as unchanged, and not add it.
 */
export function forgeIndexEntry(dir: string, file: string, claimed: string): void {
  const past = new Date(Date.now() - 3_600_000);
  utimesSync(join(dir, file), past, past);
  const source = join(dir, ".git", "claimed");
  writeFileSync(source, claimed);
  const blob = runSync("git", ["hash-object", "--no-filters", "--", source], dir).trim();
  const attributes = join(dir, ".git", "info", "attributes");
  writeFileSync(attributes, `${file} filter=forge\n`);
  runSync("git", ["rm", "--cached", "-q", "--", file], dir);
  runSync("git", ["-c", `filter.forge.clean=cat ${source}`, "add", "--", file], dir);
  rmSync(attributes);
  // The index holds the claimed content, and git sees the file as the index says it is.
  const entry = runSync("git", ["ls-files", "-s", "--", file], dir);
  if (!entry.includes(` ${blob} `) || runSync("git", ["diff", "--name-only", "--", file], dir) !== "")
    throw new Error(`the index entry of ${file} was not forged: ${entry}`);
}

/** Write a workspace evaluator pack (.cairn/evaluators/NAME.toml). */
export function writePack(dir: string, name: string, toml: string): string {
  const folder = join(dir, ".cairn", "evaluators");
  mkdirSync(folder, { recursive: true });
  const path = join(folder, `${name}.toml`);
  writeFileSync(path, toml);
  return path;
}

/** TOML for one evaluator table. */
export function evaluatorToml(fields: Record<string, string | number | boolean | string[]>): string {
  const lines = Object.entries(fields).map(([key, value]) => `${key} = ${JSON.stringify(value)}`);
  return `[[evaluator]]\n${lines.join("\n")}\n`;
}

/** `node -e SCRIPT` as an argv: evaluators never go through a shell. */
export const nodeArgv = (script: string) => [process.execPath, "-e", script];

/** Create a goal whose contract holds exactly these proofs, ready to freeze. */
export function contractWith(dir: string, proofs: Record<string, unknown>[]): string {
  const created = arrange(dir, ["goal", "create", "keep the fixture correct", "--json"]);
  if (created.code !== 0) throw new Error(`goal create failed: ${created.stderr}`);
  const id = (created.json as { goal: { id: string } }).goal.id;
  const args = [
    "goal",
    "update",
    id,
    "--outcome",
    "the fixture passes its checks",
    "--remove-proofs",
    "tests",
  ];
  for (const proof of proofs) args.push("--proofs", JSON.stringify(proof));
  const updated = arrange(dir, [...args, "--json"]);
  if (updated.code !== 0) throw new Error(`goal update failed: ${updated.stderr}`);
  return id;
}

export function cairnJson<T>(dir: string, args: string[], env?: Record<string, string | undefined>): T {
  const run = cairn(dir, [...args, "--json"], env ? { env } : {});
  if (run.code !== 0) throw new Error(`cairn ${args.join(" ")} failed (${run.code}): ${run.stderr}`);
  return run.json as T;
}

/**
 * `cairnJson` for a step a test only stands on (a goal drafted, a claim), run in-thread
 * (helpers/arrange.ts). Not for a plan, a freeze or an attempt: those run git.
 */
export function arrangeJson<T>(dir: string, args: string[], env?: Record<string, string | undefined>): T {
  const run = arrange(dir, [...args, "--json"], env ? { env } : {});
  if (run.code !== 0) throw new Error(`cairn ${args.join(" ")} failed (${run.code}): ${run.stderr}`);
  return run.json as T;
}

/** Freeze a run of `goal`; its id. */
export const freezeRun = (dir: string, goal: string) =>
  cairnJson<{ run: { id: string } }>(dir, ["run", "freeze", goal]).run.id;

/** Open an attempt on `run` as whoever `env` names; its id. */
export const openAttempt = (dir: string, run: string, env?: Record<string, string | undefined>) =>
  cairnJson<{ attempt: { id: string } }>(dir, ["attempt", "open", run], env).attempt.id;

/**
 * A frozen run of a goal whose one proof, `check` (threshold 1), is measured by one evaluator,
 * `fixture-check`, with these fields (its argv, inputs, repeats…); the run's id.
 */
export function checkRun(
  dir: string,
  evaluator: Record<string, string | number | boolean | string[]>,
): string {
  const goal = contractWith(dir, [{ name: "check", threshold: 1 }]);
  writePack(dir, "fixture", evaluatorToml({ name: "fixture-check", proof: "check", ...evaluator }));
  return freezeRun(dir, goal);
}

/** `cairn attempt eval` started in the background as `env`'s caller; `exited` settles with its exit code. */
export function evalInBackground(dir: string, attempt: string, env: Record<string, string | undefined> = {}) {
  const child = spawn(process.execPath, [CAIRN_BIN, "attempt", "eval", attempt], {
    cwd: dir,
    env: cleanEnv(env),
    stdio: "ignore",
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return { child, exited };
}
