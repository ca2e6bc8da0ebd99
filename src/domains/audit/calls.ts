import type { Outcome } from "../../kernel/outcome.js";
import type { Effect } from "../identity/guard.js";
import { boundData, SEVERITIES, type Severity } from "./chain.js";
import { beginPending } from "./pending.js";
import { type AuditScope, actorLabel, audit, auditDirOf } from "./record.js";

/** The call's severity, raised to the command's own floor. */
const floorOf =
  (command: { auditSeverity?: Severity }) =>
  (severity: Severity): Severity =>
    command.auditSeverity && SEVERITIES.indexOf(command.auditSeverity) > SEVERITIES.indexOf(severity)
      ? command.auditSeverity
      : severity;

/**
 * Before a write call runs: keep the line it gets if its process ends before it can append its own
 * (see pending.ts). Answers the record for `auditCall` to settle.
 */
export function beginAuditedCall(
  scope: AuditScope,
  command: { name: string; effect: Effect; auditSeverity?: Severity },
  input: Record<string, unknown>,
): string | undefined {
  return beginPending(auditDirOf(scope.workspace), {
    severity: floorOf(command)("notice"),
    event: "command",
    actor: actorLabel(scope.actor),
    data: {
      command: command.name,
      effect: command.effect,
      input: boundData(input),
      outcome: "interrupted",
      reason:
        "the call's own line was never appended (its process was killed or crashed, or could not write the log); the journal holds what it changed, if anything",
      started: new Date().toISOString(),
    },
  });
}

/**
 * The audit entry for one write call, whatever its outcome: the command, who called it, its
 * input (long values cut, see chain.ts) and how it ended. Refusals are kept too: an agent
 * probing what it may not do is exactly what the log is for.
 */
export function auditCall(
  scope: AuditScope,
  command: { name: string; effect: Effect; auditSeverity?: Severity },
  input: Record<string, unknown>,
  outcome: Outcome<unknown>,
  pending?: string,
): void {
  const data: Record<string, unknown> = { command: command.name, effect: command.effect, input };
  const floor = floorOf(command);
  let severity: Severity = floor(command.effect === "destructive" ? "notice" : "info");
  if (outcome.kind === "ok") {
    data.outcome = "ok";
    const value = outcome.value as Record<string, unknown> | null;
    if (value && typeof value === "object" && "exit_code" in value) data.exit_code = value.exit_code;
  } else if (outcome.kind === "refused") {
    data.outcome = "refused";
    data.policy = outcome.refusal.policy;
    data.reason = outcome.refusal.reason;
    severity = floor("notice");
  } else {
    data.outcome = outcome.error.errorKind;
    data.reason = outcome.error.message;
  }
  audit(scope, severity, "command", data, pending);
}
