import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * Node reads and parses the whole of NODE_EXTRA_CA_CERTS at every start, before any of its code
 * runs: with the system bundle there (219 kB, as some machines and CI images set it), `node -e 0`
 * took ~85 ms more CPU, a third of what a spawned `cairn` costs, and a run starts thousands of
 * Node processes (`cairn`, `cairn mcp`, the evaluators' `npm test`). Nothing a test starts speaks
 * TLS, so the workers, and all they spawn, start without it.
 */
delete process.env.NODE_EXTRA_CA_CERTS;

/**
 * End-to-end suites that also run against PostgreSQL (the `pg` project): criteria, goals' gates,
 * the read-only dashboard, the change feed, and the commands that make and move workspaces (init,
 * export, import), where the bugs the full run (`npm run test:postgres`) found have sat. Memory
 * recall, agent runs and the stores' other reads are checked on both stores by the store contract
 * tests and the pg-* suites. The CLI's and the MCP tools' own suites (cli, knowledge-mcp,
 * goals-mcp, agents-cli) are left to the full run: with them `npm test` took 1,056 s on two cores,
 * and the same machine varies by a sixth from run to run (1,059 s, then 1,236 s for the same
 * tests), which would put a slow run past CI's 20 minutes. So is tasks-claims (79 s on
 * PostgreSQL, the sample's longest, when three runs of the whole took 1,044 to 1,152 s): claims
 * racing across processes and checkouts on PostgreSQL, a WIP cap among them, are pg-team's.
 */
const PG_SUITES = [
  "test/e2e/workspace.test.ts",
  "test/e2e/loose-ends.test.ts",
  "test/e2e/tasks-verify.test.ts",
  "test/e2e/startup-modules.test.ts",
  "test/e2e/goals-gates.test.ts",
  "test/e2e/ui-http.test.ts",
  "test/e2e/mcp-subscriptions.test.ts",
];

/**
 * `expect.poll` waits for what a separate process shows (a browser page drawn from the
 * dashboard's reads, a server's listeners): its default of 1 s failed the attempts chart once,
 * on PostgreSQL with both cores busy (it passed on the rerun). A poll that succeeds returns
 * as soon as it does.
 */
const base = {
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: "forks",
  // Suites share their worker, but for those ISOLATED_SUITES names.
  isolate: false,
  expect: { poll: { timeout: 10_000 } },
} as const;

/**
 * `npm run test:postgres`: every end-to-end and browser suite against PostgreSQL, the whole of
 * what `pg` samples (689 to 754 s on two cores, so not part of `npm test`). The pg-* suites set
 * up their own stores and stay out. A test that only SQLite can take (a damaged database file,
 * file modes, bytes that are not UTF-8) says so with `runIf`; any other failure here is a finding.
 */
const ALL_ON_POSTGRES = process.env.CAIRN_TEST_ALL_ON_POSTGRES === "1";
const allOnPostgres = {
  test: {
    ...base,
    name: "pg-all",
    include: ["test/e2e/**/*.test.ts", "test/browser/**/*.test.ts"],
    exclude: [...configDefaults.exclude, "test/e2e/pg-*.test.ts"],
    env: { CAIRN_TEST_STORE: "postgres" },
  },
};

/**
 * Vitest's default of one worker fewer than the cores leaves a two-core machine one worker, while
 * most suites spend their time waiting on the processes they spawn: two workers there ran the
 * whole suite in 297 s, where one took 451 s without even the browser suites (three workers:
 * 277 s, with half again the CPU contention per test).
 */
const maxWorkers = Math.max(2, availableParallelism() - 1);

/**
 * Suites that need a process of their own, which vitest's isolation gives each file: those that
 * replace a module of Node's (`vi.mock("node:fs")`), and those that count what the whole process
 * holds (its open sockets), which a suite before them in a shared worker may still be closing.
 * Every other suite shares its worker with the files before it: a fresh process per file cost
 * 0.75 s of CPU for an end-to-end suite and 0.8 s for a unit suite (starting a worker and loading
 * the modules again), ~120 s of the run's 1,925 s of CPU on a two-core machine. None sets
 * `process.env` without putting it back, and what a suite starts it stops, though not always
 * before the next one begins: a test reads only what it made, never a count of the process's.
 */
const ISOLATED_SUITES = [
  "test/unit/fd-output.test.ts",
  "test/unit/daemon-lock-race.test.ts",
  "test/unit/store.test.ts",
  "test/unit/store-contract-closed.test.ts",
];

export default defineConfig({
  test: {
    maxWorkers,
    // One PostgreSQL for the whole run (or CAIRN_TEST_PG_URL): pg suites and store contract tests;
    // and the thread suites set themselves up in (test/helpers/arrange.ts).
    globalSetup: ["test/helpers/pg-global.ts", "test/helpers/arrange-global.ts"],
    projects: ALL_ON_POSTGRES
      ? [allOnPostgres]
      : [
          {
            test: {
              ...base,
              name: "sqlite",
              include: ["test/**/*.test.ts"],
              exclude: [...configDefaults.exclude, ...ISOLATED_SUITES],
            },
          },
          { test: { ...base, name: "isolated", include: ISOLATED_SUITES, isolate: true } },
          { test: { ...base, name: "pg", include: PG_SUITES, env: { CAIRN_TEST_STORE: "postgres" } } },
        ],
  },
});
