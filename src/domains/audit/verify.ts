import { existsSync } from "node:fs";
import { join } from "node:path";
import { readRegularFile } from "../../kernel/regular-file.js";
import { type Anchor, type AuditEntry, GENESIS, parseLine } from "./chain.js";
import { AUDIT_FILE, SEGMENT_PATTERN, segmentsIn } from "./log.js";

export interface Break {
  file: string;
  /** 1-based line number inside `file`. */
  line: number;
  reason: string;
  /** Set when the chain is intact but does not hold an anchor: how that anchor was given. */
  by?: string;
}

/** A line a writer stopped part way through (killed mid-write, a full disk, a power cut). */
export interface Torn {
  file: string;
  /** 1-based line number inside `file`. */
  line: number;
}

export interface Verdict {
  ok: boolean;
  /** Torn lines the chain runs across. */
  torn: Torn[];
  /** Entries checked, across every file walked. */
  entries: number;
  /** Files walked, oldest first. */
  files: string[];
  /** Where the walk began: the genesis, or a seam whose sealed segment is gone. */
  from: "genesis" | "rotation" | "empty";
  /** The last entry: what to keep elsewhere and pass back as an anchor. */
  head?: { seq: number; hash: string };
  broken?: Break;
}

interface FileWalk {
  entries: AuditEntry[];
  /** The line each entry is on (torn lines skipped between them). */
  lines: number[];
  broken?: Break;
  torn: Torn[];
}

/**
 * Whether an unreadable line is what a writer stopped mid-line leaves: the next writer ends the
 * fragment and links its own line to the entry before it (see AuditLog.append), so the line after
 * extends the chain right across it. A line edited, or put in place of an entry, is not crossed so:
 * the next line still names the entry that was there.
 */
function crossed(previous: AuditEntry | undefined, following: readonly string[]): boolean {
  // Past every fragment in a row (a writer stopped mid-line, then the next one too).
  let parsed: ReturnType<typeof parseLine> | undefined;
  for (const line of following) {
    parsed = parseLine(line);
    if (parsed.ok) break;
  }
  if (!parsed?.ok) return false;
  return previous
    ? parsed.entry.prev === previous.hash && parsed.entry.seq === previous.seq + 1
    : parsed.entry.prev === GENESIS && parsed.entry.seq === 1;
}

/** Check every line of one file: its own hash, its link to the line before, its sequence number. */
function walkFile(path: string, name: string): FileWalk {
  const entries: AuditEntry[] = [];
  const numbers: number[] = [];
  const torn: Torn[] = [];
  /** The walk so far, ended by `reason` at `line` when the chain breaks there. */
  const walked = (broken?: { line: number; reason: string }): FileWalk => ({
    entries,
    lines: numbers,
    torn,
    ...(broken ? { broken: { file: name, ...broken } } : {}),
  });
  let text: string;
  try {
    text = readRegularFile(path);
  } catch (error) {
    if ((error as { code?: string }).code !== "ENOTREG") throw error;
    // Something was put in the log's place: the chain cannot be read, so it is not intact.
    return walked({ line: 1, reason: "not a regular file (the log was replaced)" });
  }
  if (text === "") return walked();
  const lines = text.split("\n");
  const terminated = lines.at(-1) === "";
  if (terminated) lines.pop();
  for (let index = 0; index < lines.length; index++) {
    const line = index + 1;
    const previous = entries.at(-1);
    // Not yet crossed, a fragment at the end cannot be told from the last entry edited or cut.
    if (!terminated && index === lines.length - 1) {
      return walked({
        line,
        reason:
          "the last line is not terminated: a write stopped part way (the next write links across it), or an edit",
      });
    }
    const parsed = parseLine(lines[index] as string);
    if (!parsed.ok) {
      if (crossed(previous, lines.slice(index + 1, terminated ? undefined : -1))) {
        torn.push({ file: name, line });
        continue;
      }
      return walked({ line, reason: parsed.reason });
    }
    if (previous) {
      if (parsed.entry.prev !== previous.hash)
        return walked({ line, reason: `its prev does not match line ${numbers.at(-1)}'s hash` });
      if (parsed.entry.seq !== previous.seq + 1)
        return walked({ line, reason: `seq ${parsed.entry.seq} does not follow ${previous.seq}` });
    }
    entries.push(parsed.entry);
    numbers.push(line);
  }
  return walked();
}

/**
 * Walk the chain from the live file back through the seams of its rotations, then forward:
 * the first line that breaks it is named with its file and line number. What the chain proves:
 * no line was edited, inserted or removed in the middle. Alone it cannot tell a complete rewrite
 * by someone who can write the file, nor a cut of whole lines at the very end: the chain is only
 * hashed, and anyone can hash. Anchors (heads this returned before, kept off the machine or out
 * of agents' reach) close both: the log must still hold each of those very entries, and the
 * chain proves everything before them unchanged.
 */
export function verifyAudit(stateDir: string, anchors: readonly Anchor[] = []): Verdict {
  const verdict = walkChain(stateDir);
  const { kept = [], ...rest } = verdict;
  if (!verdict.ok) return rest;
  for (const anchor of anchors) {
    const broken = anchorBreak(kept, anchor);
    if (broken) return { ...rest, ok: false, broken };
  }
  return rest;
}

/** Why the log does not hold `anchor`, if it does not. */
function anchorBreak(kept: Kept, anchor: Anchor): Break | undefined {
  const by = anchor.by ?? "anchored";
  const found = kept.find((at) => at.entry.seq === anchor.seq);
  if (found?.entry.hash === anchor.hash) return undefined;
  if (found) {
    return {
      ...found,
      by,
      reason: `entry ${anchor.seq} is not the ${by} one (its hash differs): the log was rewritten`,
    };
  }
  const first = kept[0];
  if (first && anchor.seq < first.entry.seq) {
    return {
      file: first.file,
      line: first.line,
      by,
      reason: `the ${by} entry ${anchor.seq} is older than the oldest kept (${first.entry.seq}): the segment holding it was removed, or the log was replaced`,
    };
  }
  const last = kept.at(-1);
  return {
    file: last?.file ?? AUDIT_FILE,
    line: last?.line ?? 1,
    by,
    reason: `the ${by} entry ${anchor.seq} is not in the log (it ends at ${last?.entry.seq ?? 0}): lines were cut, or the log was replaced`,
  };
}

/** Every entry of the chain with the file and line it sits on, oldest first. */
type Kept = { file: string; line: number; entry: AuditEntry }[];

function walkChain(stateDir: string): Verdict & { kept?: Kept } {
  const files: string[] = [];
  const torn: Torn[] = [];
  let total = 0;
  let from: Verdict["from"] = "empty";
  const visited = new Set<string>();
  // Newest first: each segment names the one before it.
  const walks: { name: string; walk: FileWalk }[] = [];
  let name = AUDIT_FILE;
  for (;;) {
    const path = join(stateDir, name);
    if (!existsSync(path)) {
      if (name !== AUDIT_FILE) from = "rotation";
      break;
    }
    const walk = walkFile(path, name);
    walks.unshift({ name, walk });
    visited.add(name);
    const first = walk.entries[0];
    if (!first) break;
    /** A break at the file's first entry (torn lines before it skipped). */
    const atFirst = (reason: string): Break => ({ file: name, line: walk.lines[0] ?? 1, reason });
    if (first.prev === GENESIS && first.seq === 1) {
      from = "genesis";
      // Sealed segments beside a live file that starts afresh: its seam was lost (or the log
      // was replaced), so what they hold is no longer linked to what is live.
      const sealed = name === AUDIT_FILE ? segmentsIn(stateDir) : [];
      if (sealed.length > 0) {
        walk.broken ??= atFirst(
          `the live log starts a new chain though sealed segments lie beside it (${sealed.at(-1)})`,
        );
      }
      break;
    }
    if (first.event !== "audit_rotated") {
      walk.broken ??= atFirst("the first line links to neither the genesis nor a rotation");
      break;
    }
    const sealed = String(first.data.rotated_to ?? "");
    if (!SEGMENT_PATTERN.test(sealed) || visited.has(sealed)) {
      walk.broken ??= atFirst(`the rotation seam names an invalid segment (${sealed})`);
      break;
    }
    if (first.prev !== first.data.tail_hash) {
      walk.broken ??= atFirst("the rotation seam's prev differs from its tail_hash");
      break;
    }
    name = sealed;
  }
  // Oldest first: the first break found in that order is the first break of the chain.
  for (let i = 0; i < walks.length; i++) {
    const { name: file, walk } = walks[i] as { name: string; walk: FileWalk };
    files.push(file);
    total += walk.entries.length;
    torn.push(...walk.torn);
    if (walk.broken) return { ok: false, torn, entries: total, files, from, broken: walk.broken };
    const next = walks[i + 1];
    const seam = next?.walk.entries[0];
    const last = walk.entries.at(-1);
    if (seam && last && (seam.prev !== last.hash || seam.seq !== last.seq + 1)) {
      return {
        ok: false,
        torn,
        entries: total,
        files: [...files, next.name],
        from,
        broken: {
          file: next.name,
          line: next.walk.lines[0] ?? 1,
          reason: `the rotation seam does not link to the last line of ${file}`,
        },
      };
    }
  }
  const kept = walks.flatMap(({ name, walk }) =>
    walk.entries.map((entry, index) => ({ file: name, line: walk.lines[index] ?? index + 1, entry })),
  );
  const last = kept.at(-1)?.entry;
  return {
    ok: true,
    torn,
    entries: total,
    files,
    from,
    head: last && { seq: last.seq, hash: last.hash },
    kept,
  };
}
