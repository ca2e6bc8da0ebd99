import { os } from "../../kernel/builtins.js";
import { refuse } from "../../kernel/outcome.js";
import { quoteValue } from "../../kernel/text.js";
import type { AttemptRecord } from "../../store/goals.js";

/** This machine, as an attempt records the machine its checkout is on. */
export const thisMachine = (): string => os().hostname();

/**
 * The folder an attempt evaluates, keeps and reverts in, on its own machine only. A shared store
 * holds every machine's attempts, and a team's clones often sit at one path: on another machine
 * that path is another checkout, whose tree would be measured, committed or reset as the
 * attempt's. An attempt recorded with no machine is taken as this one's, as before.
 */
export function attemptCheckout(
  attempt: Pick<AttemptRecord, "id" | "checkout" | "checkoutHost">,
  fallbackRoot: string,
  doing: string,
): string {
  const here = thisMachine();
  if (attempt.checkoutHost !== null && attempt.checkoutHost !== here) {
    throw refuse(
      "checkout",
      `${attempt.id} was opened in ${attempt.checkout ?? fallbackRoot} on the machine ${quoteValue(attempt.checkoutHost)}, not on this one (${quoteValue(here)}): a checkout at that path here is another checkout`,
      `${doing} on ${quoteValue(attempt.checkoutHost)}, or open an attempt of your own here (\`cairn attempt open\`)`,
    );
  }
  return attempt.checkout ?? fallbackRoot;
}
