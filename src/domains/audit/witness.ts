import { mkdirSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { crypto } from "../../kernel/builtins.js";
import { readRegularFile } from "../../kernel/regular-file.js";
import type { Anchor } from "./verify.js";

/**
 * The machine's witness of a workspace's audit log: the head the last intact `audit verify` saw,
 * kept in CAIRN_HOME rather than beside the log. The chain alone cannot show lines cut from its
 * end, nor a log rewritten whole, by anything that can write `.cairn/` (an agent's shell, a verify
 * command it wrote): the next verify finds the witnessed entry missing or changed. It is as safe
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
  return { file, held: heldIn(file) };
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
  const temp = `${witness.file}.${process.pid}.tmp`;
  try {
    mkdirSync(join(witness.file, ".."), { recursive: true, mode: 0o700 });
    writeFileSync(temp, `${JSON.stringify({ format: FORMAT, seq: head.seq, hash: head.hash })}\n`, {
      mode: 0o600,
    });
    renameSync(temp, witness.file);
  } finally {
    rmSync(temp, { force: true });
  }
  return head;
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
