// Kept apart from child.ts, which loads node:child_process: a session marks the board it serves
// before it knows whether it will start any process.

/**
 * Set in every process cairn starts: the boards (stores) it was started for, as a JSON array.
 * Taking CAIRN_AGENT away is not enough, since a cairn run with no CAIRN_AGENT is the workspace
 * owner: any agent that can have cairn run a command (a verify argv, a shortcut) would act as
 * the owner through it. A cairn run inside such a process, on one of these boards, with no token
 * of its own, is refused instead. Other boards (a test suite's scratch workspaces) are untouched.
 */
export const STARTED_FOR_VARIABLE = "CAIRN_STARTED_FOR";

let startedFor: string | undefined;
let credentials: readonly string[] = [];

/**
 * The board this process serves; every child it starts from now on is marked as started for it.
 * `storeCredentials` names the variables that hold the board's store credential in this process
 * (PGPASSWORD for a shared store): none of them reaches a child that does not act on the board
 * as itself (see childEnv, and storeAccess in store-access.ts).
 */
export function startChildrenFor(board: string, storeCredentials: readonly string[] = []): void {
  startedFor = board;
  credentials = storeCredentials;
}

export const servedBoard = (): string | undefined => startedFor;

/** The variables holding the served board's store credential (none for a SQLite board). */
export const storeCredentialVariables = (): readonly string[] => credentials;

/** The boards an environment says its process was started for (none when unset or unreadable). */
export function boardsStartedFor(env: NodeJS.ProcessEnv): string[] {
  const value = env[STARTED_FOR_VARIABLE];
  if (value === undefined) return [];
  try {
    const boards: unknown = JSON.parse(value);
    return Array.isArray(boards) ? boards.filter((board): board is string => typeof board === "string") : [];
  } catch {
    return [];
  }
}
