import { os } from "../../kernel/builtins.js";
import { isThisMachine, machineName, thisMachineRecord } from "../../kernel/machine.js";
import { refuse } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import type { AttemptRecord } from "../../store/goals.js";
import type { Tx } from "../../store/store.js";

/** This machine, as an attempt records the machine its checkout is on (kernel/machine.ts). */
export const thisMachine = (): string => thisMachineRecord();

/**
 * The attempt still open in `checkout` on this machine. One recorded with the host name alone (by
 * a cairn that did not yet tell installs of one name apart) is taken as this machine's too.
 */
export async function openAttemptHere(tx: Tx, checkout: string): Promise<AttemptRecord | undefined> {
  const here = thisMachine();
  const open = await tx.goals.openAttemptIn(checkout, here);
  if (open || here === os().hostname()) return open;
  return tx.goals.openAttemptIn(checkout, os().hostname());
}

/**
 * The folder an attempt evaluates, keeps and reverts in, on its own machine only. A shared store
 * holds every machine's attempts, and a team's clones often sit at one path: on another machine
 * that path is another checkout, whose tree would be measured, committed or reset as the
 * attempt's. Machines of one host name are told apart by their install. An attempt recorded with
 * no machine is taken as this one's, as before.
 */
export function attemptCheckout(
  attempt: Pick<AttemptRecord, "id" | "checkout" | "checkoutHost">,
  fallbackRoot: string,
  doing: string,
): string {
  if (attempt.checkoutHost !== null && !isThisMachine(attempt.checkoutHost)) {
    const there = machineName(attempt.checkoutHost);
    const here = os().hostname();
    const which =
      there === here ? `another machine named ${quoteValue(there)}` : `the machine ${quoteValue(there)}`;
    throw refuse(
      "checkout",
      `${attempt.id} was opened in ${attempt.checkout ?? fallbackRoot} on ${which}, not on this one (${quoteValue(here)}): a checkout at that path here is another checkout`,
      `${doing} on ${which}, or open an attempt of your own here (\`cairn attempt open\`)`,
    );
  }
  return attempt.checkout ?? fallbackRoot;
}
