import { useView } from "../api.js";
import { withBase } from "../base.js";
import { Copy, Empty, IdLink, Loaded, Section, Status, Text, Time } from "../components.js";
import { html } from "../html.js";
import type { ActivityView, TaskDetail, TaskSummary } from "../types.js";
import { EventRow } from "./activity.js";

type Criterion = TaskDetail["criteria"][number];

/** A check whose pass cairn does not count as verifying the finish: one its holder set itself. */
const holdersOwn = (c: Criterion) => (c.verify !== null || c.shortcut !== null) && !c.verifies_done;

/**
 * "Verified" only when cairn ran a check the task's author (or the owner) set and it exited 0: a
 * bare tick is a claim, and a check its holder added itself passes only on its holder's terms.
 */
function proofOf(c: Criterion): { label: string; kind: string } {
  if (!c.checked)
    return c.evidence ? { label: "failed", kind: "bad" } : { label: "not checked", kind: "muted" };
  // Earned on a tree the checkout no longer holds: finish refuses it until the check runs again.
  if (c.stale) return { label: "no longer holds", kind: "warn" };
  if (c.evidence && c.evidence.exit_code === 0)
    return holdersOwn(c)
      ? { label: "passed its holder's own check", kind: "warn" }
      : { label: "verified by cairn", kind: "ok" };
  return { label: "claimed (no command run)", kind: "warn" };
}

function CriterionView({ c, task }: { c: Criterion; task: string }) {
  const proof = proofOf(c);
  const e = c.evidence;
  return html`<li class="criterion" data-row>
    <div><span class=${`pill ${proof.kind}`}>${proof.label}</span> ${c.n}. <${Text} text=${c.text} /></div>
    ${c.verify ? html`<div class="muted">check: <code>${c.verify.join(" ")}</code></div>` : null}
    ${c.shortcut ? html`<div class="muted">shortcut: <code>${c.shortcut}</code></div>` : null}
    ${holdersOwn(c) ? html`<div class="muted">added by ${c.added_by ?? "its holder"}, not the task's author</div>` : null}
    ${c.checked_by ? html`<div class="muted">checked by ${c.checked_by} <${Time} at=${c.checked_at} /></div>` : null}
    ${
      e
        ? html`<div class="evidence">
          <div>
            <span>cairn ran</span> <code>${e.argv.join(" ")}</code>
            <span>${`exit ${e.exit_code ?? "none"}${e.signal ? ` (${e.signal})` : ""}${e.timed_out ? ", timed out" : ""}, ${Math.round(e.duration_ms)} ms,`}</span>
            <${Time} at=${e.at} />
            ${e.git_head ? html`<span>at commit <code>${e.git_head.slice(0, 12)}</code></span>` : null}
          </div>
          ${e.error ? html`<div class="error-text"><${Text} text=${e.error} /></div>` : null}
          ${
            e.output_tail
              ? html`<pre class="tail" aria-label=${`Output tail of criterion ${c.n}`}>${e.output_tail}</pre>`
              : html`<div class="muted">no output</div>`
          }
          <div class="muted small">${e.output_bytes} bytes, sha256 <code>${e.output_sha256.slice(0, 16)}…</code></div>
        </div>`
        : null
    }
    ${c.stale ? html`<div class="warn-text"><${Text} text=${c.stale} /></div>` : null}
    ${(!c.checked && c.verify) || c.stale ? html`<${Copy} command=${`cairn task check ${task} --n ${c.n}`} />` : null}
  </li>`;
}

function TaskLinks({ tasks }: { tasks: TaskSummary[] }) {
  if (tasks.length === 0) return html`<${Empty}>None.<//>`;
  return html`<ul class="rows">${tasks.map((t) => html`<li data-row><${IdLink} id=${t.id} /> <${Status} status=${t.status} /> <${Text} text=${t.title} /></li>`)}</ul>`;
}

export function Task({ id }: { id: string }) {
  const state = useView<TaskDetail>("task show", { task: id });
  const timeline = useView<ActivityView>("activity", { subject: id, limit: 50 });
  return html`<${Loaded} state=${state}>
    ${(d: TaskDetail) => {
      const t = d.task;
      const verified = d.criteria.filter((c) => proofOf(c).kind === "ok").length;
      return html`
        <h1><span class="id">${t.id}</span> <${Text} text=${t.title} /></h1>
        <p class="meta">
          <${Status} status=${t.status} /> <span class=${`prio prio-${t.priority}`}>${t.priority}</span>
          ${t.owner ? html` held by <span class="owner">${t.owner}</span> since <${Time} at=${t.claimed_at} />` : null}
          ${t.parent ? html` · parent <${IdLink} id=${t.parent} />` : null}
          · created by ${t.created_by} <${Time} at=${t.created_at} />
          ${t.labels.length ? html` · labels ${t.labels.join(", ")}` : null}
        </p>
        ${t.so_that ? html`<p><strong>So that</strong> <${Text} text=${t.so_that} /></p>` : null}
        ${t.context ? html`<p class="context"><${Text} text=${t.context} /></p>` : null}
        ${t.blocked_reason ? html`<p class="why">Blocked: <${Text} text=${t.blocked_reason} /></p>` : null}
        ${t.unverified ? html`<p class="warn-text">Finished without every criterion verified.</p>` : null}
        ${(d.rules_changed_since_added ?? []).map(
          (r) =>
            html`<p class="warn-text">The rules in cairn.toml changed since it was added: ${r.sections.join(", ")}${r.sections_total !== undefined ? ` and ${r.sections_total - r.sections.length} more` : ""}, <${Time} at=${r.at} />, first seen in a call of ${r.first_seen_in_call_of}${r.machine ? ` on ${r.machine}` : ""}.</p>`,
        )}
        ${d.rules_changed_more ? html`<p class="warn-text">… and earlier changes of those rules since it was added: <a href=${withBase("/activity?action=rules.changed")}>all changes</a>.</p>` : null}
        <div class="actions">
          <${Copy} command=${`cairn task show ${t.id} --json`} />
          ${t.status === "open" ? html`<${Copy} command=${`cairn task claim ${t.id}`} />` : null}
          ${t.status === "active" ? html`<${Copy} command=${`cairn task check ${t.id} --all`} />` : null}
        </div>
        <${Section} title="Acceptance criteria" count=${d.criteria.length}>
          ${d.criteria.length ? html`<p class="muted">${verified} of ${d.criteria.length} verified by cairn</p>` : html`<${Empty}>No criteria.<//>`}
          <ol class="criteria">${d.criteria.map((c) => html`<${CriterionView} c=${c} task=${t.id} />`)}</ol>
        <//>
        <div class="grid">
          <${Section} title="Depends on"><${TaskLinks} tasks=${d.depends_on} /><//>
          <${Section} title="Waiting on this"><${TaskLinks} tasks=${d.dependents} /><//>
          <${Section} title="Sub-tasks"><${TaskLinks} tasks=${d.children} /><//>
        </div>
        ${
          d.open_asks.length
            ? html`<${Section} title="Open questions">
              <ul class="rows">${d.open_asks.map((a) => html`<li>${a.id} by ${a.asked_by} to ${a.to}: <${Text} text=${a.question} /> <${Copy} command=${`cairn answer ${a.id} "…"`} /></li>`)}</ul>
            <//>`
            : null
        }
        <${Section} title="Notes" count=${d.notes.length}>
          ${d.notes.length === 0 ? html`<${Empty}>No notes.<//>` : null}
          <ul class="rows">${d.notes.map((n) => html`<li><span class="muted">${n.kind}, ${n.author}, <${Time} at=${n.at} /></span> <blockquote><${Text} text=${n.text} /></blockquote></li>`)}</ul>
        <//>
        <${Section} title="Timeline">
          <${Loaded} state=${timeline}>
            ${(view: ActivityView) => html`<ol class="events">${view.events.map((e) => html`<${EventRow} event=${e} />`)}</ol>`}
          <//>
        <//>
      `;
    }}
  <//>`;
}
