import { useView } from "../api.js";
import { Copy, Empty, IdLink, Loaded, Section, Text, Time } from "../components.js";
import { html } from "../html.js";
import type { ReviewView } from "../types.js";

export function Review() {
  const state = useView<ReviewView>("review");
  return html`<h1>Review queue</h1>
    <${Loaded} state=${state}>
      ${(r: ReviewView) => html`
        <${Section} title="Attempts awaiting a decision" count=${r.attempts.length}>
          ${r.attempts.length === 0 ? html`<${Empty}>No attempt waits for review.<//>` : null}
          <ul class="rows">
            ${r.attempts.map(
              (
                a,
              ) => html`<li data-row><${IdLink} id=${a.attempt} /> of <${IdLink} id=${a.goal} /> (<${IdLink} id=${a.run} />), decided <${Time} at=${a.decided_at} />:
                <${Text} text=${a.reason} /> <${Copy} command=${`cairn attempt show ${a.attempt}`} /></li>`,
            )}
          </ul>
        <//>
        <${Section} title="Finished without verification" count=${r.unverified.length}>
          ${r.unverified.length === 0 ? html`<${Empty}>Every finished task was verified.<//>` : null}
          <ul class="rows">${r.unverified.map((t) => html`<li data-row><${IdLink} id=${t.id} /> <${Text} text=${t.title} /> ${t.owner ? html`<span class="owner">${t.owner}</span>` : null}</li>`)}</ul>
        <//>
      `}
    <//>`;
}
