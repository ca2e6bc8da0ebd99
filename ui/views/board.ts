import { useView } from "../api.js";
import { withBase } from "../base.js";
import { ago, Empty, IdLink, Loaded, Text } from "../components.js";
import { html } from "../html.js";
import { useRoute, withQuery } from "../router.js";
import type { BoardView, Card } from "../types.js";

function Dots({ deps }: { deps: Card["depends_on"] }) {
  if (deps.length === 0) return null;
  return html`<span class="deps">
    after ${deps.map(
      (
        d,
      ) => html`<a href=${withBase(`/tasks/${d.id}`)} class=${`dot status-${d.status}`} title=${`${d.id} is ${d.status}`}
      ><span aria-hidden="true">●</span><span class="sr">${d.id} ${d.status}</span></a
    >`,
    )}
  </span>`;
}

function CardView({ card }: { card: Card }) {
  const c = card.criteria;
  return html`<li class="card" data-row>
    <div><${IdLink} id=${card.id} /> <span class=${`prio prio-${card.priority}`}>${card.priority}</span></div>
    <div class="title"><${Text} text=${card.title} /></div>
    ${
      c.total > 0
        ? html`<div class=${c.verified === c.total ? "ok" : "muted"}>
          ${c.verified}/${c.total} verified${c.claimed > 0 ? html`, <span class="warn-text">${c.claimed} claimed only</span>` : null}
        </div>`
        : null
    }
    ${card.owner ? html`<div><span class="owner">${card.owner}</span> <span class="muted">lease ${ago(card.lease_at)}</span></div>` : null}
    ${card.blocked_reason ? html`<div class="why">blocked: <${Text} text=${card.blocked_reason} /></div>` : null}
    ${card.unverified ? html`<div class="warn-text">finished unverified</div>` : null}
    <${Dots} deps=${card.depends_on} />
  </li>`;
}

export function Board() {
  const { path, query } = useRoute();
  const dropped = query.get("dropped") === "1";
  const state = useView<BoardView>("board", { dropped: dropped || undefined });
  return html`<h1>Board</h1>
    <p><a href=${withBase(withQuery(path, query, { dropped: dropped ? null : "1" }))}>${dropped ? "Hide" : "Show"} dropped</a></p>
    <${Loaded} state=${state}>
      ${(board: BoardView) => html`<div class="board">
        ${board.columns.map(
          (column) => html`<section class="column" aria-labelledby=${`col-${column.status}`}>
            <h2 id=${`col-${column.status}`}>${column.status} <span class="count">${column.total.toLocaleString("en")}</span></h2>
            ${column.cards.length === 0 ? html`<${Empty}>None.<//>` : null}
            <ul class="cards">${column.cards.map((card) => html`<${CardView} card=${card} />`)}</ul>
            ${
              column.total > column.cards.length
                ? html`<a href=${withBase(`/tasks?status=${column.status}`)}>Showing ${column.cards.length} of ${column.total.toLocaleString("en")}: see all</a>`
                : null
            }
          </section>`,
        )}
      </div>`}
    <//>`;
}
