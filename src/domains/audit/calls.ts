import type { Outcome } from "../../kernel/outcome.js";
import type { Effect } from "../identity/guard.js";
import { SEVERITIES, type Severity } from "./chain.js";
import { type AuditScope, audit } from "./record.js";

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
): void {
  const data: Record<string, unknown> = { command: command.name, effect: command.effect, input };
  const floor = (severity: Severity): Severity =>
    command.auditSeverity && SEVERITIES.indexOf(command.auditSeverity) > SEVERITIES.indexOf(severity)
      ? command.auditSeverity
      : severity;
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
  audit(scope, severity, "command", data);
}
