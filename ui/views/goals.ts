import { useView } from "../api.js";
import { withBase } from "../base.js";
import { AttemptsChart } from "../chart.js";
import { Copy, Empty, IdLink, Loaded, Section, Text, Time, Verdict } from "../components.js";
import { html } from "../html.js";
import { useRoute, withQuery } from "../router.js";
import type { GoalList, GoalShow, Progress, Series } from "../types.js";

/** Goals per page: the server reads each goal's contract whole, so a page is kept short. */
const GOALS_PAGE = 50;

export function Goals() {
  const { path, query } = useRoute();
  const page = Math.max(1, Number(query.get("page") ?? "1") || 1);
  const state = useView<GoalList>("goal list", { limit: GOALS_PAGE, offset: (page - 1) * GOALS_PAGE });
  return html`<h1>Goals</h1>
    <${Loaded} state=${state}>
      ${(list: GoalList) =>
        list.total === 0
          ? html`<${Empty}>No goals yet. <${Copy} command='cairn goal create "…"' /><//>`
          : html`${
              list.total > GOALS_PAGE
                ? html`<p class="summary">Showing ${((page - 1) * GOALS_PAGE + 1).toLocaleString("en")}–${((page - 1) * GOALS_PAGE + list.goals.length).toLocaleString("en")} of ${list.total.toLocaleString("en")}</p>`
                : null
            }
            ${list.goals.length === 0 ? html`<${Empty}>This page is past the end.<//>` : null}
            <ul class="rows">
              ${list.goals.map(
                (g) => html`<li data-row><${IdLink} id=${g.id} /> <${Text} text=${g.goal} />
                  <span class="muted">proofs: ${g.proofs.join(", ") || "none"}${g.open ? ` · ${g.open} to fill in` : ""} · updated <${Time} at=${g.updated_at} /></span></li>`,
              )}
            </ul>
            ${
              page > 1 || list.next_offset !== null
                ? html`<nav class="pager" aria-label="Pages">
                    ${page > 1 ? html`<a href=${withBase(withQuery(path, query, { page: page > 2 ? String(page - 1) : null }))} rel="prev">Previous</a>` : null}
                    ${list.next_offset !== null ? html`<a href=${withBase(withQuery(path, query, { page: String(page + 1) }))} rel="next">Next</a>` : null}
                  </nav>`
                : null
            }`}
    <//>`;
}

const fmt = (v: number | null) => (v === null ? "—" : Number.isInteger(v) ? String(v) : v.toPrecision(4));

function SeriesTable({ series }: { series: Series }) {
  return html`<table class="compact">
    <caption class="sr">Attempts measured by ${series.evaluator}</caption>
    <thead><tr><th scope="col">Attempt</th><th scope="col">Verdict</th><th scope="col">Value</th><th scope="col">± noise</th><th scope="col">Repeats</th><th scope="col">Best kept</th><th scope="col">Δ baseline</th><th scope="col">Reason</th></tr></thead>
    <tbody>
      ${series.points.map(
        (p) => html`<tr data-row>
          <td><${IdLink} id=${p.attempt} /></td><td><${Verdict} verdict=${p.verdict} reverted=${p.reverted} /></td>
          <td>${fmt(p.value)}</td><td>${fmt(p.noise)}</td><td>${p.repeats}${p.failed_repeats ? ` (${p.failed_repeats} failed)` : ""}</td>
          <td>${fmt(p.best)}</td><td>${p.gain === null ? "—" : `${p.gain >= 0 ? "+" : ""}${fmt(p.gain)}${p.gain_in_noise !== null ? ` (${p.gain_in_noise.toFixed(1)}×)` : ""}`}</td>
          <td><${Text} text=${p.reason} /></td>
        </tr>`,
      )}
    </tbody>
  </table>`;
}

function ProgressView({
  progress,
  path,
  query,
}: {
  progress: Progress;
  path: string;
  query: URLSearchParams;
}) {
  if (!progress.run)
    return html`<${Empty}>No run frozen yet. <${Copy} command=${`cairn run freeze ${progress.goal_id}`} /><//>`;
  return html`
    <p>
      Run <${IdLink} id=${progress.run.id} />, frozen <${Time} at=${progress.run.created_at} />; evaluators frozen at${" "}
      <code class="hash" title=${progress.run.manifest_hash}>${progress.run.manifest_hash.slice(0, 23)}…</code>.${" "}
      ${progress.kept} kept of ${progress.attempts} attempts${progress.attempts ? ` (keep rate ${Math.round((100 * progress.kept) / progress.attempts)}%)` : ""}${progress.charted < progress.attempts ? `; the newest ${progress.charted} charted` : ""}.
    </p>
    ${
      progress.runs.length > 1
        ? html`<p>Runs: ${progress.runs.map((r) => html`<a href=${withBase(withQuery(path, query, { run: r }))} aria-current=${r === progress.run?.id ? "true" : undefined}>${r}</a> `)}</p>`
        : null
    }
    ${progress.series.map(
      (s) => html`<section class="series" aria-labelledby=${`ev-${s.evaluator}`}>
        <h3 id=${`ev-${s.evaluator}`}>${s.evaluator} <span class="muted">measures ${s.proof}, ${s.direction} is better${s.hidden ? ", hidden holdout" : ""}</span></h3>
        ${s.hidden && s.points.length === 0 ? html`<p class="muted">A hidden evaluator: its numbers are the owner's only.</p>` : html`<${AttemptsChart} series=${s} title=${`${s.evaluator}: attempts of ${progress.run?.id}`} />`}
        ${s.points.length ? html`<${SeriesTable} series=${s} />` : null}
      </section>`,
    )}
  `;
}

export function Goal({ id }: { id: string }) {
  const { path, query } = useRoute();
  const goal = useView<GoalShow>("goal show", { id });
  const progress = useView<Progress>("goal progress", { id, run: query.get("run") ?? undefined });
  return html`<${Loaded} state=${goal}>
    ${(g: GoalShow) => html`
      <h1><span class="id">${g.goal.id}</span> <${Text} text=${g.goal.goal} /></h1>
      <${Section} title="Contract">
        <dl class="facts">
          <dt>Outcome</dt><dd>${g.goal.outcome ? html`<${Text} text=${g.goal.outcome} />` : html`<span class="warn-text">to fill in</span>`}</dd>
          <dt>Constraints</dt><dd>${g.goal.constraints.length ? g.goal.constraints.map((c) => html`<div><${Text} text=${c} /></div>`) : "none"}</dd>
          <dt>Non-goals</dt><dd>${g.goal.non_goals.length ? g.goal.non_goals.map((c) => html`<div><${Text} text=${c} /></div>`) : "none"}</dd>
          <dt>Proofs</dt>
          <dd>
            ${g.goal.proofs.map(
              (p) =>
                html`<div><code>${p.name}</code> ${p.direction === "higher" ? "≥" : "≤"} ${p.threshold ?? "?"}${p.manual ? " (manual)" : ""} <span class="muted"><${Text} text=${p.description} /></span></div>`,
            )}
          </dd>
        </dl>
        ${g.to_fill_in.length ? html`<p class="warn-text">Still to fill in: ${g.to_fill_in.join("; ")}</p>` : null}
      <//>
      <${Section} title="Milestones" count=${g.milestones.length}>
        ${g.milestones.length === 0 ? html`<${Empty}>Not planned yet. <${Copy} command=${`cairn goal plan ${g.goal.id}`} /><//>` : null}
        <ol class="rows">
          ${g.milestones.map(
            (m) => html`<li data-row>${m.id} <strong>${m.key}</strong>: <${Text} text=${m.title} />
              <span class="muted">[${m.proofs.join(", ")}]${m.depends_on.length ? ` after ${m.depends_on.join(", ")}` : ""}</span>
              ${m.task_id ? html` → <${IdLink} id=${m.task_id} />` : null}</li>`,
          )}
        </ol>
      <//>
      <${Section} title="Attempts">
        <${Loaded} state=${progress}>${(p: Progress) => html`<${ProgressView} progress=${p} path=${path} query=${query} />`}<//>
      <//>
    `}
  <//>`;
}
