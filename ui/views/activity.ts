import { useView } from "../api.js";
import { withBase } from "../base.js";
import { Empty, IdLink, Loaded, Text, Time } from "../components.js";
import { html } from "../html.js";
import { useRoute, withQuery } from "../router.js";
import type { ActivityView, JournalEvent } from "../types.js";
import { FilterForm } from "./filters.js";

const SUBJECT = /^(AT|T|G|R)-\d+$/;

export function EventRow({ event }: { event: JournalEvent }) {
  return html`<li data-row>
    <a class="muted eid" href=${withBase(`/activity?before=${event.id + 1}`)} aria-label=${`event ${event.id}`}>#${event.id}</a>
    <${Time} at=${event.at} /> <span class="actor">${event.actor}</span> <code>${event.action}</code>
    ${SUBJECT.test(event.subject) ? html`<${IdLink} id=${event.subject} />` : html`<${Text} text=${event.subject} />`}
  </li>`;
}

export function Activity() {
  const { path, query } = useRoute();
  const filter = {
    actor: query.get("actor") ?? undefined,
    action: query.get("action") ?? undefined,
    subject: query.get("subject") ?? undefined,
    before: query.get("before") ?? undefined,
    limit: 100,
    // The page shows no event's data, and a block's reason alone holds up to 256 KiB.
    data: false,
  };
  const state = useView<ActivityView>("activity", filter);
  return html`<h1>Activity</h1>
    <${FilterForm}
      fields=${[
        { name: "actor", label: "Actor", placeholder: "owner or A-1" },
        { name: "action", label: "Action", placeholder: "task. or task.claim" },
        { name: "subject", label: "Subject", placeholder: "T-12" },
      ]}
    />
    <${Loaded} state=${state}>
      ${(view: ActivityView) => html`
        ${view.events.length === 0 ? html`<${Empty}>No events match.<//>` : null}
        <ol class="events">${view.events.map((e) => html`<${EventRow} event=${e} />`)}</ol>
        <nav class="pager" aria-label="Pages">
          ${filter.before ? html`<a href=${withBase(withQuery(path, query, { before: null }))}>Newest</a>` : null}
          ${view.next_before ? html`<a href=${withBase(withQuery(path, query, { before: String(view.next_before) }))}>Older</a>` : null}
        </nav>
      `}
    <//>`;
}
