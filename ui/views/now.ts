import { useView } from "../api.js";
import { withBase } from "../base.js";
import {
  ago,
  Copy,
  Empty,
  IdLink,
  Loaded,
  plural,
  Section,
  Status,
  Text,
  Time,
  Verdict,
} from "../components.js";
import { html } from "../html.js";
import type { NowView } from "../types.js";
import { EventRow } from "./activity.js";
import { AgentsInboxLine } from "./agents.js";

const STATUSES = ["open", "active", "blocked", "done", "dropped"];

function Inbox({ now }: { now: NowView }) {
  const { review, blocked, stale_claims, open_asks, open_asks_total, unverified, unverified_total } =
    now.inbox;
  // The lists hold the newest; the count says how many wait in all.
  const total =
    review.length + (now.counts.blocked ?? 0) + stale_claims.length + open_asks_total + unverified_total;
  return html`<${Section} title="Needs a human" count=${total}>
    ${total === 0 ? html`<${Empty}>Nothing is waiting for a person.<//>` : null}
    <ul class="inbox">
      ${review.map(
        (r) => html`<li data-row>
          <${Verdict} verdict="review" /> <${IdLink} id=${r.attempt} /> of <${IdLink} id=${r.goal} />:
          <${Text} text=${r.reason} />
          <${Copy} command=${`cairn attempt show ${r.attempt}`} />
        </li>`,
      )}
      ${blocked.map(
        (b) => html`<li data-row>
          <${Status} status="blocked" /> <${IdLink} id=${b.id} /> <${Text} text=${b.title} />
          <span class="why">— <${Text} text=${b.why || "no reason given"} /></span>
        </li>`,
      )}
      ${stale_claims.map(
        (c) => html`<li data-row>
          <span class="pill warn">lease expired</span> <${IdLink} id=${c.id} /> held by ${c.owner}, last renewed
          <${Time} at=${c.lease_at} />
          <${Copy} command="cairn sweep" />
        </li>`,
      )}
      ${open_asks.map(
        (a) => html`<li data-row>
          <span class="pill warn">question</span> ${a.id} on <${IdLink} id=${a.task} /> by ${a.asked_by} to ${a.to}:
          <${Text} text=${a.question} />
          <${Copy} command=${`cairn answer ${a.id} "…"`} />
        </li>`,
      )}
      ${
        open_asks_total > open_asks.length
          ? html`<li data-row>
              <span class="pill warn">questions</span> ${(open_asks_total - open_asks.length).toLocaleString("en")} more
              open questions <${Copy} command="cairn asks" />
            </li>`
          : null
      }
      ${unverified.map(
        (id) =>
          html`<li data-row><span class="pill warn">finished unverified</span> <${IdLink} id=${id} /></li>`,
      )}
      ${
        unverified_total > unverified.length
          ? html`<li data-row>
              <span class="pill warn">finished unverified</span> ${(unverified_total - unverified.length).toLocaleString("en")}
              more <a href=${withBase("/review")}>in review</a>
            </li>`
          : null
      }
    </ul>
    <${AgentsInboxLine} />
  <//>`;
}

function Counts({ counts }: { counts: Record<string, number> }) {
  return html`<ul class="counts" aria-label="Tasks by status">
    ${STATUSES.map(
      (s) =>
        html`<li><a href=${withBase(`/tasks?status=${s}`)}><span class="n">${(counts[s] ?? 0).toLocaleString("en")}</span> ${s}</a></li>`,
    )}
  </ul>`;
}

function NowPage({ now }: { now: NowView }) {
  const at = Date.parse(now.as_of);
  return html`
    <${Counts} counts=${now.counts} />
    <div class="grid">
      <${Inbox} now=${now} />
      <${Section} title="Ready to claim" count=${now.ready.length}>
        ${now.ready.length === 0 ? html`<${Empty}>Nothing is ready.<//>` : null}
        <ol class="rows">
          ${now.ready.map(
            (
              t,
            ) => html`<li data-row><${IdLink} id=${t.id} /> <span class=${`prio prio-${t.priority}`}>${t.priority}</span>
              <${Text} text=${t.title} /></li>`,
          )}
        </ol>
        ${now.ready[0] ? html`<${Copy} command="cairn task next" />` : null}
      <//>
      <${Section} title="Active claims" count=${now.claims.length}>
        ${now.claims.length === 0 ? html`<${Empty}>No one holds a task.<//>` : null}
        <ul class="rows">
          ${now.claims.map(
            (c) => html`<li data-row class=${c.stale ? "stale" : ""}>
              <${IdLink} id=${c.id} /> <${Text} text=${c.title} /> <span class="owner">${c.owner}</span>
              <span class="muted">lease ${ago(c.lease_at, at)}${c.stale ? " — expired" : ""}</span>
            </li>`,
          )}
        </ul>
      <//>
      <${Section} title="Goals" count=${now.goals_total}>
        ${now.goals.length === 0 ? html`<${Empty}>No goals yet.<//>` : null}
        <ul class="rows">
          ${now.goals.map(
            (g) => html`<li data-row>
              <${IdLink} id=${g.id} /> <${Text} text=${g.goal} />
              <span class="muted">${plural(g.attempts, "attempt")}, ${g.kept} kept${g.in_review ? `, ${g.in_review} in review` : ""}</span>
              ${g.latest ? html` latest <${IdLink} id=${g.latest.attempt} /> <${Verdict} verdict=${g.latest.verdict} />` : null}
            </li>`,
          )}
        </ul>
        ${now.goals_total > now.goals.length ? html`<a href=${withBase("/goals")}>All ${now.goals_total.toLocaleString("en")} goals</a>` : null}
      <//>
    </div>
    <${Section} title="Activity">
      <ol class="events">
        ${now.activity.map((e) => html`<${EventRow} event=${e} />`)}
      </ol>
      <a href=${withBase("/activity")}>All activity</a>
    <//>
  `;
}

export function Now() {
  const state = useView<NowView>("now");
  return html`<h1>Now</h1><${Loaded} state=${state}>${(now: NowView) => html`<${NowPage} now=${now} />`}<//>`;
}
