import { useView } from "../api.js";
import { Copy, Empty, IdLink, Loaded, Section, Text, Time, Verdict } from "../components.js";
import { html } from "../html.js";
import type { AttemptShow, RunStatus } from "../types.js";

export function Attempt({ id }: { id: string }) {
  const state = useView<AttemptShow>("attempt show", { attempt: id });
  return html`<${Loaded} state=${state}>
    ${(a: AttemptShow) => {
      const at = a.attempt;
      return html`
        <h1><span class="id">${at.id}</span> <${Verdict} verdict=${at.verdict} reverted=${at.reverted_at !== null} /></h1>
        <p>
          On run <${IdLink} id=${at.run_id} />${at.milestone_id ? ` for milestone ${at.milestone_id}` : ""}, opened by ${at.opened_by}
          <${Time} at=${at.opened_at} /> at <code>${at.base_head?.slice(0, 12) ?? "no commit"}</code>${at.base_dirty ? ` (already changed: ${at.base_changes.join(", ")})` : ""}.
          ${at.decided_at ? html` Decided <${Time} at=${at.decided_at} />.` : null}
        </p>
        ${at.verdict === "review" ? html`<div class="actions"><${Copy} command=${`cairn attempt show ${at.id} --json`} /></div>` : null}
        ${
          a.decision
            ? html`<${Section} title="Decision">
              <ul class="rows">${a.decision.reasons.map((r) => html`<li><${Text} text=${r} /></li>`)}</ul>
              <table class="compact">
                <thead><tr><th scope="col">Proof</th><th scope="col">Required</th><th scope="col">Source</th><th scope="col">Passed</th><th scope="col">Score</th></tr></thead>
                <tbody>${a.decision.proofs.map((p) => html`<tr><td><code>${p.name}</code></td><td>${p.required ? "yes" : "no"}</td><td>${p.source}</td><td>${p.passed ? "pass" : "fail"}</td><td>${p.score.toFixed(2)}</td></tr>`)}</tbody>
              </table>
              ${a.decision.kept_commit ? html`<p>Kept as commit <code>${a.decision.kept_commit.slice(0, 12)}</code>.</p>` : null}
            <//>`
            : html`<${Empty}>Not decided yet. <${Copy} command=${`cairn attempt decide ${at.id}`} /><//>`
        }
        <${Section} title="Samples" count=${a.samples.length}>
          ${a.samples.length === 0 ? html`<${Empty}>No evaluator has run. <${Copy} command=${`cairn attempt eval ${at.id}`} /><//>` : null}
          <ol class="criteria">
            ${a.samples.map(
              (s) => html`<li class="criterion" data-row>
                <div><code>${s.evaluator}</code> (${s.proof}) repeat ${s.repeat + 1}: exit ${s.exit_code ?? "—"}, value ${s.value ?? "—"}, ${Math.round(s.duration_ms)} ms${s.hidden ? " · hidden" : ""}</div>
                ${s.error ? html`<div class="error-text"><${Text} text=${s.error} /></div>` : null}
                ${s.output_tail ? html`<pre class="tail">${s.output_tail}</pre>` : null}
              </li>`,
            )}
          </ol>
        <//>
      `;
    }}
  <//>`;
}

export function Run({ id }: { id: string }) {
  const state = useView<RunStatus>("run status", { run: id });
  return html`<${Loaded} state=${state}>
    ${(r: RunStatus) => html`
      <h1><span class="id">${r.run.id}</span> of <${IdLink} id=${r.run.goal_id} /></h1>
      <p>Frozen <${Time} at=${r.run.created_at} />; manifest <code class="hash">${r.run.manifest_hash}</code></p>
      ${r.drift.length ? html`<p class="warn-text">Changed on disk since freezing (this run keeps its frozen copy): ${r.drift.join(", ")}</p>` : null}
      <${Section} title="Frozen evaluators" count=${r.run.evaluators.length}>
        <ul class="rows">${r.run.evaluators.map((e) => html`<li><code>${e.name}</code> (${e.proof}) ${e.argv ? html`<code>${e.argv.join(" ")}</code>` : "hidden"} × ${e.repeats} <span class="muted">${e.hash.slice(0, 19)}…</span></li>`)}</ul>
      <//>
      <${Section} title="Attempts" count=${r.attempts_total}>
        ${r.attempts.length < r.attempts_total ? html`<p class="muted">The newest ${r.attempts.length}; earlier ones: <${Copy} command=${`cairn run status ${r.run.id} --offset 0`} /></p>` : null}
        <ul class="rows">${r.attempts.map((a) => html`<li data-row><${IdLink} id=${a.id} /> <${Verdict} verdict=${a.verdict} reverted=${a.reverted} /> by ${a.opened_by} <${Time} at=${a.opened_at} /></li>`)}</ul>
      <//>
    `}
  <//>`;
}
