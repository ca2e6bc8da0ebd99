import type { CommandDomain } from "../domain.js";
import { auditTail, auditVerify } from "./commands.js";

/** The tamper-evident audit log: every write, run and refusal, hash-chained. */
export const auditDomain: CommandDomain = {
  name: "audit",
  commands: [auditVerify, auditTail],
  tools: [],
  groups: { audit: "The tamper-evident log of every write, run and refusal (verify, tail)" },
};
