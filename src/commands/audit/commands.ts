import { z } from "zod";
import { type Anchor, SEVERITIES } from "../../domains/audit/chain.js";
import { auditDirOf, auditLogOf, witnessDirsOf } from "../../domains/audit/record.js";
import { verifyAudit } from "../../domains/audit/verify.js";
import { readWitness, recordWitness, type Witness, WitnessError } from "../../domains/audit/witness.js";
import { homeWorkspace } from "../../domains/workspace/discover.js";
import { conflict } from "../../kernel/outcome.js";
import { defineCommand } from "../define.js";

/** `SEQ:HASH`: an entry's sequence number and its SHA-256. */
const ANCHOR = /^[1-9]\d{0,15}:[0-9a-f]{64}$/;

const Entry = z.object({
  seq: z.number(),
  ts: z.string(),
  severity: z.enum(SEVERITIES),
  event: z.string(),
  actor: z.string(),
  data: z.record(z.string(), z.unknown()),
  prev: z.string(),
  hash: z.string(),
});

const headOf = (anchor: Anchor | undefined) => (anchor ? `${anchor.seq}:${anchor.hash}` : null);

/** The machine's witness of this workspace's log; a damaged one is a conflict naming its file. */
function witnessOf(machineStateDir: string, workspaceStateDir: string): Witness {
  try {
    return readWitness(machineStateDir, workspaceStateDir);
  } catch (error) {
    if (!(error instanceof WitnessError)) throw error;
    throw conflict(
      error.message,
      `whoever damaged it may have cut the log too: compare the log with a backup, then have a person remove ${error.file} to witness anew from the next verify`,
    );
  }
}

export const auditVerify = defineCommand({
  name: "audit verify",
  summary:
    "Check the audit log's hash chain end to end, and that it still holds the head this machine witnessed last (at a write or a verify); fails naming the first line that breaks it",
  effect: "read",
  input: z.object({
    anchor: z
      .string()
      .regex(ANCHOR, "an anchor is SEQ:HASH, as `audit verify` printed it")
      .optional()
      .describe(
        "SEQ:HASH printed by an earlier verify and kept off this machine: the log must still hold that entry",
      ),
  }),
  output: z.object({
    ok: z.literal(true),
    entries: z.number(),
    files: z.array(z.string()),
    from: z.enum(["genesis", "rotation", "empty"]),
    head: z
      .string()
      .nullable()
      .describe("SEQ:HASH of the last entry: keep it elsewhere, pass it as --anchor later"),
    witness: z
      .object({
        file: z.string().describe("where this machine keeps it, in CAIRN_HOME"),
        checked: z
          .string()
          .nullable()
          .describe(
            "SEQ:HASH witnessed before (by a write or a verify on this machine), which the log still holds (null: none)",
          ),
        holds: z.string().nullable().describe("SEQ:HASH it holds now, for the next verify"),
      })
      .describe("the head the last intact verify on this machine saw, kept outside the workspace"),
    anchor: z.string().optional().describe("the --anchor given, which the log still holds"),
    torn: z
      .array(z.object({ file: z.string(), line: z.number() }))
      .optional()
      .describe(
        "lines a writer stopped part way through (killed mid-write, a power cut): the chain runs across each",
      ),
  }),
  async handler(input, ctx) {
    const [seq, hash] = input.anchor?.split(":") ?? [];
    const given: Anchor[] = input.anchor ? [{ seq: Number(seq), hash: hash as string, by: "anchored" }] : [];
    // The log's own witness first (the one shown), then the workspace's when the log is elsewhere.
    const witnesses = witnessDirsOf(ctx.workspace).map((dir) =>
      witnessOf(homeWorkspace(ctx.env).stateDir, dir),
    );
    const witness = witnesses[0] as Witness;
    const witnessed: Anchor[] = witnesses.flatMap((each) =>
      each.held ? [{ ...each.held, by: "witnessed" }] : [],
    );
    try {
      // Calls whose process was killed before their line get it first: the log checked holds them.
      auditLogOf(ctx.workspace, ctx.config).settleInterrupted();
    } catch {
      // A log that cannot be appended to is verified as it is.
    }
    const verdict = verifyAudit(auditDirOf(ctx.workspace), [...given, ...witnessed]);
    if (!verdict.ok && verdict.broken) {
      const { file, line, reason, by } = verdict.broken;
      throw conflict(
        `audit chain broken at ${file} line ${line}: ${reason} (${verdict.entries} entries before it verified)`,
        by === "witnessed"
          ? `the log lost or changed entries since this machine witnessed them (at a write or a verify); keep the files as evidence. If a person removed old segments or restored .cairn from a backup on purpose, remove ${witnesses.map((each) => each.file).join(" and ")} to witness anew`
          : "the log was edited or damaged there; keep the file as evidence and compare it with a backup",
      );
    }
    let holds = witness.held;
    if (verdict.head) {
      for (const each of witnesses) {
        try {
          const held = recordWitness(each, verdict.head);
          if (each === witness) holds = held;
        } catch {
          // A read-only CAIRN_HOME: the log verified all the same; the witness stays where it was.
        }
      }
    }
    return {
      ok: true as const,
      entries: verdict.entries,
      files: verdict.files,
      from: verdict.from,
      head: headOf(verdict.head),
      witness: { file: witness.file, checked: headOf(witness.held), holds: headOf(holds) },
      ...(input.anchor ? { anchor: input.anchor } : {}),
      ...(verdict.torn.length > 0 ? { torn: verdict.torn } : {}),
    };
  },
  render: (out) =>
    `Audit chain intact: ${out.entries} entries in ${out.files.length} file(s), from the ${out.from === "genesis" ? "genesis" : out.from === "rotation" ? "oldest kept rotation" : "start (empty log)"}.` +
    (out.torn?.length
      ? `\nTorn write${out.torn.length > 1 ? "s" : ""} (a writer stopped mid-line; the chain runs across it): ${out.torn
          .slice(0, 10)
          .map((at) => `${at.file} line ${at.line}`)
          .join(", ")}${out.torn.length > 10 ? `, and ${out.torn.length - 10} more` : ""}.`
      : "") +
    (out.witness.checked
      ? `\nStill holds entry ${out.witness.checked.split(":")[0]}, the head this machine witnessed last (at a write or a verify).`
      : "") +
    (out.anchor ? `\nStill holds entry ${out.anchor.split(":")[0]}, the --anchor given.` : "") +
    (out.head
      ? `\nHead: ${out.head} (kept where agents cannot write, \`audit verify --anchor\` with it later shows a log cut or rewritten since; this machine keeps it too, in ${out.witness.file})`
      : ""),
});

export const auditTail = defineCommand({
  name: "audit tail",
  summary: "The latest audit entries, oldest first",
  effect: "read",
  input: z.object({
    lines: z.number().int().min(1).max(1_000).default(20).describe("how many (default 20)"),
    severity: z.enum(SEVERITIES).optional().describe("only this severity and above"),
  }),
  output: z.object({ entries: z.array(Entry) }),
  async handler(input, ctx) {
    const floor = input.severity ? SEVERITIES.indexOf(input.severity) : 0;
    const log = auditLogOf(ctx.workspace, ctx.config);
    const entries = log
      .tail(floor > 0 ? 1_000 : input.lines)
      .filter((entry) => SEVERITIES.indexOf(entry.severity) >= floor)
      .slice(-input.lines);
    return { entries };
  },
  render: (out) =>
    out.entries.length === 0
      ? "The audit log is empty."
      : out.entries
          .map((e) => {
            const subject =
              e.data.command ??
              (e.data.skill ? `${e.data.skill} ${e.data.script}` : (e.data.argv ?? e.data.bin));
            const what = subject
              ? ` ${Array.isArray(subject) ? subject.join(" ") : String(subject)}`.slice(0, 100)
              : "";
            const result = typeof e.data.outcome === "string" ? ` → ${e.data.outcome}` : "";
            return `${String(e.seq).padStart(5)} ${e.ts} ${e.severity.padEnd(8)} ${e.event}${what}${result}  (${e.actor})`;
          })
          .join("\n"),
});
