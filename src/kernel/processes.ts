import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { boardsStartedFor, STARTED_FOR_VARIABLE } from "./started-for.js";

/**
 * Processes as this machine's kernel knows them. A pid names a process only while it lives: once
 * it is gone, the pid is handed to another. A pid kept in a file or a row (a daemon's lock, a
 * run's supervisor) is therefore kept with the process's start, and trusted only while both match.
 */

const BOOT_ID = "/proc/sys/kernel/random/boot_id";

/** After a timeout or a cancel, a process group gets this long to exit on SIGTERM before SIGKILL. */
export const KILL_GRACE_MS = 1_000;

/** A process's /proc/PID/stat fields after its command name (state, ppid, pgrp, ...); Linux only. */
export function statFields(pid: number | "self"): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name is in parentheses and may itself hold spaces and parentheses.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

/** A process's command line, word by word (/proc/PID/cmdline); null where /proc is not there or it is gone. */
export function commandLineOf(pid: number): string[] | null {
  try {
    const words = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    if (words.at(-1) === "") words.pop();
    return words;
  } catch {
    return null;
  }
}

/**
 * When a process started: the boot, and the clock ticks since it (field 22 of /proc/PID/stat).
 * With the pid, it names one process for good. Null where /proc is not there (or the process is
 * gone).
 */
export function processStart(pid: number | "self"): string | null {
  const ticks = statFields(pid)?.[19];
  return ticks === undefined ? null : `${bootId()}:${ticks}`;
}

let boot: string | undefined;

/** This boot's id, read once (it cannot change under a running process). */
function bootId(): string {
  if (boot === undefined) {
    try {
      boot = readFileSync(BOOT_ID, "utf8").trim();
    } catch {
      // No boot id to read: the ticks alone still tell a reused pid apart within a boot.
      boot = "";
    }
  }
  return boot;
}

let ownStart: string | null | undefined;

/** This process's start, read once. */
export function ownProcessStart(): string | null {
  ownStart ??= processStart("self");
  return ownStart;
}

/**
 * Whether `pid` still runs. A zombie does not: it has exited and only waits for its parent to
 * collect it (a cairn killed outright under a parent that has not yet waited for it), yet signal
 * 0 still reaches it.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return statFields(pid)?.[0] !== "Z";
}

/**
 * Whether the process that recorded `pid` and `start` still runs: the pid is alive and, when a
 * start was recorded and this machine can tell, it started at that very moment. A record without
 * a start (written before starts were kept, or where /proc is not there) is judged by its pid.
 */
export function sameProcessAlive(pid: number, start: string | null): boolean {
  if (!processAlive(pid)) return false;
  if (start === null) return true;
  const now = processStart(pid);
  return now === null || now === start;
}

interface ProcessEntry {
  pid: number;
  pgrp: number;
  /** Exited, not yet reaped by its parent: it holds no lock and runs nothing. */
  zombie?: boolean;
}

/** Every process in /proc with its process group (Linux); empty where /proc is not there. */
export function processTable(): ProcessEntry[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const table: ProcessEntry[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    // Null: gone while we looked.
    if (fields) table.push({ pid: Number(entry), pgrp: Number(fields[2]), zombie: fields[0] === "Z" });
  }
  return table;
}

const carriesAll = (pid: number, marks: readonly string[]) => {
  try {
    const environment = new Set(readFileSync(`/proc/${pid}/environ`, "utf8").split("\0"));
    return marks.every((mark) => environment.has(mark));
  } catch {
    return false;
  }
};

/** Send `signal` to process group `group`; false when the group is already gone. */
export function signalGroup(group: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-group, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Kill every process group holding a process whose environment carries all of `marks`
 * (`NAME=value` strings a supervisor gave what it started): what escaped a process group with
 * setsid still inherited them. Never this process's own group. Returns whether it killed.
 * Linux only, and best effort: a process started with a cleared environment carries no mark.
 */
export function killGroupsCarrying(
  marks: readonly string[],
  table: readonly ProcessEntry[] = processTable(),
): boolean {
  const own = table.find((entry) => entry.pid === process.pid)?.pgrp;
  const groups = new Set<number>();
  for (const entry of table)
    if (entry.pgrp > 1 && entry.pgrp !== own && carriesAll(entry.pid, marks)) groups.add(entry.pgrp);
  let killed = false;
  for (const group of groups) if (signalGroup(group, "SIGKILL")) killed = true;
  return killed;
}

/**
 * The variable that marks what one supervised command started: `PID.NONCE.SPACE`, PID its cairn's
 * and SPACE the pid namespace that pid is a pid of (marks written before it was kept end at NONCE).
 */
export const CHILD_MARK_VARIABLE = "CAIRN_CHILD_MARK";

let ownSpace: string | undefined;

/**
 * This process's pid namespace, as the inode its /proc link names; "" where there is none to read.
 * A container on this machine has its own: a pid there means another process here, or none.
 */
function pidNamespace(): string {
  if (ownSpace === undefined) {
    try {
      ownSpace = /\[(\d+)\]/.exec(readlinkSync("/proc/self/ns/pid"))?.[1] ?? "";
    } catch {
      ownSpace = "";
    }
  }
  return ownSpace;
}

/** A fresh mark for what one supervised command starts (the value of CHILD_MARK_VARIABLE). */
export const newChildMark = (nonce: string): string => `${process.pid}.${nonce}.${pidNamespace()}`;

/**
 * Kill what a cairn process that died without stopping it (kill -9, a crash, the OOM killer)
 * left running for `board`: the verify commands, shortcuts, evaluators, skill scripts and OS
 * tools it supervised live on in process groups of their own, marked with its pid. A group is
 * killed only when the pid its mark names runs no more (a reused pid spares it: a missed kill,
 * never a wrong one), and only when it was started for this board. Never this process's own
 * group. Linux only. Returns how many groups it stopped (see stopGroups).
 *
 * Asked to stop first, a leftover may answer by starting a process in a group of its own
 * (setsid) that acts once the sweep is over: after the grace, what still carries a dead
 * supervisor's mark for this board is killed outright, in whatever group it is now.
 */
export async function killChildrenOfDeadSupervisors(
  board: string,
  table: readonly ProcessEntry[] = processTable(),
  graceMs = KILL_GRACE_MS,
): Promise<number> {
  const stopped = await stopGroups(orphanedGroups(board, table), graceMs);
  if (stopped > 0) for (const group of orphanedGroups(board, processTable())) signalGroup(group, "SIGKILL");
  return stopped;
}

/** The groups holding a process started for `board` by a cairn that runs no more. */
function orphanedGroups(board: string, table: readonly ProcessEntry[]): Set<number> {
  const own = table.find((entry) => entry.pid === process.pid)?.pgrp;
  const groups = new Set<number>();
  const prefix = `${CHILD_MARK_VARIABLE}=`;
  for (const entry of table) {
    if (entry.pgrp <= 1 || entry.pgrp === own || groups.has(entry.pgrp)) continue;
    let environment: string[];
    try {
      environment = readFileSync(`/proc/${entry.pid}/environ`, "utf8").split("\0");
    } catch {
      continue;
    }
    const mark = environment.find((variable) => variable.startsWith(prefix));
    if (!mark) continue;
    const [pid, , space] = mark.slice(prefix.length).split(".");
    // A supervisor in another pid namespace (a container on this machine serving the same shared
    // board) is named by a pid of its own namespace: here that pid is another process, or none,
    // and its live command was killed as an orphan. Only its own namespace can judge it.
    if (space !== undefined && space !== pidNamespace()) continue;
    const supervisor = Number(pid);
    if (!Number.isInteger(supervisor) || supervisor <= 0 || processAlive(supervisor)) continue;
    const startedFor = environment.find((variable) => variable.startsWith(`${STARTED_FOR_VARIABLE}=`));
    const boards = boardsStartedFor({
      [STARTED_FOR_VARIABLE]: startedFor?.slice(STARTED_FOR_VARIABLE.length + 1),
    });
    if (boards.includes(board)) groups.add(entry.pgrp);
  }
  return groups;
}

/**
 * SIGTERM to each group, then SIGKILL to what is left of them after `graceMs`. Asked first, git
 * removes its lock files as it exits: killed outright in a keep's commit hook, it left
 * `.git/index.lock`, and every later git in that checkout failed on it until a person removed it.
 * Returns how many groups were stopped.
 */
async function stopGroups(groups: Iterable<number>, graceMs: number): Promise<number> {
  const stopped = [...groups].filter((group) => signalGroup(group, "SIGTERM"));
  const deadline = Date.now() + graceMs;
  let left = stopped;
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const running = new Set(processTable().flatMap((entry) => (entry.zombie ? [] : [entry.pgrp])));
    left = left.filter((group) => running.has(group));
  }
  for (const group of left) signalGroup(group, "SIGKILL");
  return stopped.length;
}
