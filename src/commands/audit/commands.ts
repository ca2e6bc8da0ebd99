import { z } from "zod";
import { SEVERITIES } from "../../domains/audit/chain.js";
import { auditLogOf } from "../../domains/audit/record.js";
import { verifyAudit } from "../../domains/audit/verify.js";
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

export const auditVerify = defineCommand({
  name: "audit verify",
  summary:
    "Check the audit log's hash chain end to end; fails naming the first line that breaks it (with --anchor, also a cut or rewritten log)",
  effect: "read",
  input: z.object({
    anchor: z
      .string()
      .regex(ANCHOR, "an anchor is SEQ:HASH, as `audit verify` printed it")
      .optional()
      .describe(
        "SEQ:HASH printed by an earlier verify and kept out of agents' reach: the log must still hold that entry",
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
  }),
  async handler(input, ctx) {
    const [seq, hash] = input.anchor?.split(":") ?? [];
    const anchor = input.anchor ? { seq: Number(seq), hash: hash as string } : undefined;
    const verdict = verifyAudit(ctx.workspace.stateDir, anchor);
    if (!verdict.ok && verdict.broken) {
      const { file, line, reason } = verdict.broken;
      throw conflict(
        `audit chain broken at ${file} line ${line}: ${reason} (${verdict.entries} entries before it verified)`,
        "the log was edited or damaged there; keep the file as evidence and compare it with a backup",
      );
    }
    const head = verdict.head ? `${verdict.head.seq}:${verdict.head.hash}` : null;
    return { ok: true as const, entries: verdict.entries, files: verdict.files, from: verdict.from, head };
  },
  render: (out) =>
    `Audit chain intact: ${out.entries} entries in ${out.files.length} file(s), from the ${out.from === "genesis" ? "genesis" : out.from === "rotation" ? "oldest kept rotation" : "start (empty log)"}.` +
    (out.head
      ? `\nHead: ${out.head} (kept where agents cannot write, \`audit verify --anchor\` with it later shows a log cut or rewritten since)`
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
