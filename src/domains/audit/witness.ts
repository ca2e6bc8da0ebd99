import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { crypto } from "../../kernel/builtins.js";
import { readRegularFile } from "../../kernel/regular-file.js";
import type { Anchor } from "./chain.js";

/**
 * The machine's witness of a workspace's audit log: the last entry cairn appended to it, or the
 * head the last intact `audit verify` saw if that is newer, kept in CAIRN_HOME rather than beside
 * the log. The chain alone cannot show lines cut from its end, nor a log rewritten whole, by
 * anything that can write `.cairn/` (an agent's shell, a verify command it wrote): the next verify
 * finds the witnessed entry missing or changed. It is as safe
 * as CAIRN_HOME is from the agents (a client that confines their writes to the project keeps it
 * out of reach); `--anchor`, a head kept off the machine, remains the stronger check.
 */
export interface Witness {
  /** Where the witness is kept: a refusal names it, so a person can remove it on purpose. */
  file: string;
  /** The entry witnessed by an earlier verify; undefined before the first. */
  held?: Anchor;
}

const FORMAT = "cairn-audit-witness/1";
const HEAD = /^[0-9a-f]{64}$/;

/**
 * A file per workspace, named by where the workspace is found: the real path of the folder that
 * holds its state folder, and that folder's own name, not followed. Named by the state folder's
 * own real path, a `.cairn` moved aside and linked back in its place (which a shell in the
 * project can do) was a workspace never witnessed, and a log cut before the move passed.
 */
function witnessFile(machineStateDir: string, workspaceStateDir: string): string {
  let real = workspaceStateDir;
  try {
    real = join(realpathSync(dirname(workspaceStateDir)), basename(workspaceStateDir));
  } catch {
    // A folder that cannot be resolved is named as given.
  }
  const name = crypto().createHash("sha256").update(real).digest("hex").slice(0, 32);
  return join(machineStateDir, "audit-witness", `${name}.json`);
}

/**
 * The witness of the log in `workspaceStateDir`. A file that is there but is not one this wrote
 * (edited, truncated, a directory or FIFO in its place) throws: dropping it silently would turn
 * the check off for whoever damaged it.
 */
export function readWitness(machineStateDir: string, workspaceStateDir: string): Witness {
  const file = witnessFile(machineStateDir, workspaceStateDir);
  try {
    return { file, held: heldIn(file) };
  } catch {
    // Read while a write was rewriting the record in place: read once more before calling it damaged.
    return { file, held: heldIn(file) };
  }
}

function heldIn(file: string): Anchor | undefined {
  let text: string;
  try {
    text = readRegularFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new WitnessError(file, `it cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  let parsed: { format?: unknown; seq?: unknown; hash?: unknown };
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new WitnessError(file, "it is not JSON");
  }
  const { format, seq, hash } = parsed ?? {};
  if (
    format !== FORMAT ||
    !Number.isSafeInteger(seq) ||
    (seq as number) < 1 ||
    typeof hash !== "string" ||
    !HEAD.test(hash)
  ) {
    throw new WitnessError(file, "it is not a witness cairn wrote");
  }
  return { seq: seq as number, hash };
}

/**
 * Keep `head` as the witness, replacing the file whole, and answer what it holds then: never
 * moved back to an older entry, which a verify running beside this one may have passed.
 */
export function recordWitness(witness: Witness, head: Anchor): Anchor {
  // Another verify may have moved it on since this one read it.
  let newest = witness.held;
  try {
    newest = heldIn(witness.file) ?? newest;
  } catch {
    // Damaged since it was read: replaced below by the head just verified.
  }
  if (newest && newest.seq > head.seq) return newest;
  const record = `${JSON.stringify({ format: FORMAT, seq: head.seq, hash: head.hash }).padEnd(RECORD_BYTES - 1)}\n`;
  if (overwrite(witness.file, record)) return head;
  const temp = `${witness.file}.${process.pid}.tmp`;
  try {
    mkdirSync(join(witness.file, ".."), { recursive: true, mode: 0o700 });
    writeFileSync(temp, record, { mode: 0o600 });
    renameSync(temp, witness.file);
  } finally {
    rmSync(temp, { force: true });
  }
  return head;
}

/**
 * Every record is one line of this many bytes (the JSON padded with spaces, which JSON allows),
 * so a witness is rewritten in place: each audited write moves it, and a new file renamed over
 * the old one made ext4 flush it first, ~0.25 ms a write against ~0.01 ms for this.
 */
const RECORD_BYTES = 160;

/**
 * Rewrite the witness in place when it is a record this wrote: a regular file of one record's
 * size with no other name (never a link, nor a FIFO, which non-blocking refuses at once). Anything
 * else answers false, for the caller to replace it whole.
 */
function overwrite(file: string, record: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size !== RECORD_BYTES || stat.nlink !== 1) return false;
    return writeSync(fd, record, 0) === RECORD_BYTES;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

/**
 * The entry cairn has just appended becomes the witness: a tail cut, or a log rewritten, after
 * this write (not only after the last verify) fails the next verify. Called under the log's lock,
 * in the order of appends. It moves only along the chain (`descends`: the log's last lines run
 * from the witnessed entry to the new one), or when nothing is witnessed yet: a log cut and grown
 * back past the witnessed seq by later writes is not witnessed anew, and verify reports the cut.
 * A witness left far behind (by many writes under another CAIRN_HOME) waits for a verify. A
 * witness that is damaged is left for verify to report, and one that cannot be written (a
 * read-only CAIRN_HOME) leaves the write as it is: the log took its line.
 */
export function witnessAppend(
  machineStateDir: string,
  workspaceStateDir: string,
  entry: Anchor,
  descends: (anchor: Anchor) => boolean,
): void {
  try {
    const witness = readWitness(machineStateDir, workspaceStateDir);
    if (witness.held && !descends(witness.held)) return;
    recordWitness(witness, { seq: entry.seq, hash: entry.hash });
  } catch {
    // Damaged or unwritable: `audit verify` says which, naming the file.
  }
}

/**
 * A workspace made anew at this path (`init`, `import`) starts a new log, which an older witness
 * of the path would call cut or rewritten: it is removed. Only the owner's launch makes one.
 */
export function forgetWitness(machineStateDir: string, workspaceStateDir: string): void {
  try {
    rmSync(witnessFile(machineStateDir, workspaceStateDir), { force: true });
  } catch {
    // A read-only CAIRN_HOME: nothing was witnessed there either.
  }
}

export class WitnessError extends Error {
  constructor(
    readonly file: string,
    readonly why: string,
  ) {
    super(`the audit witness ${file} is damaged: ${why}`);
  }
}
