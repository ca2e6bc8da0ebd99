import { useView } from "../api.js";
import { withBase } from "../base.js";
import { Copy, Empty, Loaded, Section, Text, Time } from "../components.js";
import { html } from "../html.js";
import type { AgentsStatusView } from "../types.js";

/** States a person should look at: a schedule failing or gone stale. */
export const NEEDS_A_HUMAN = new Set(["failing", "stale"]);

const pill = (state: string) =>
  html`<span class=${`pill ${state === "ok" ? "ok" : NEEDS_A_HUMAN.has(state) ? "warn" : ""}`}>${state.replace("_", " ")}</span>`;

/** Local agents and their schedules, from `cairn agents status`: state and reason, last run, next due. */
export function ScheduleHealth() {
  const state = useView<AgentsStatusView>("agents status");
  return html`<${Section} title="Schedules and health">
    <${Loaded} state=${state}>
      ${(s: AgentsStatusView) => html`<p id="daemon-state">
          Daemon: ${s.daemon.running ? html`running (pid ${s.daemon.pid}), next event <${Time} at=${s.daemon.next_event_at} />` : "not running"}
        </p>
        ${
          s.schedules.length === 0
            ? html`<${Empty}>No local agents. <${Copy} command="cairn agents new NAME" /><//>`
            : html`<table>
                <thead><tr><th scope="col">Agent / schedule</th><th scope="col">State</th><th scope="col">Why</th><th scope="col">Last run</th><th scope="col">Next due</th></tr></thead>
                <tbody>${s.schedules.map(
                  (r) => html`<tr data-row>
                    <td>${r.agent} / ${r.schedule} <span class="muted">(${r.kind})</span></td>
                    <td>${pill(r.state)}</td>
                    <td><${Text} text=${r.reason} /></td>
                    <td>${r.last_run ? html`${r.last_run.id} ${r.last_run.status}${r.last_run.exit_code === null ? "" : ` (exit ${r.last_run.exit_code})`} <${Time} at=${r.last_run.started_at} />` : "never"}</td>
                    <td><${Time} at=${r.next_window_at} /></td>
                  </tr>`,
                )}</tbody>
              </table>`
        }
        ${
          s.triggered.length > 0
            ? html`<h3>Triggered runs (never a schedule's window)</h3>
                <ul>${s.triggered.map(
                  (t) =>
                    html`<li data-row>${t.agent} via ${t.trigger}: ${t.id} ${t.status}${t.exit_code === null ? "" : ` (exit ${t.exit_code})`} <${Time} at=${t.started_at} /></li>`,
                )}</ul>`
            : null
        }
        ${s.problems.map((p) => html`<p class="pill warn" data-row>broken manifest <code>${p.file}</code>: <${Text} text=${p.reason} /></p>`)}
        <${Copy} command="cairn agents status" />`}
    <//>
  <//>`;
}

/** The Now inbox's line on local agents: how many schedules fail or went stale, linking to Agents. */
export function AgentsInboxLine() {
  const state = useView<AgentsStatusView>("agents status");
  const s = state.data;
  if (!s) return html`<p class="slot muted" id="agents-slot">Reading local agents…</p>`;
  const bad = s.schedules.filter((r) => NEEDS_A_HUMAN.has(r.state));
  return html`<p class="slot" id="agents-slot">
    ${
      bad.length === 0
        ? `Local agents: ${s.counts.ok} ok, ${s.counts.never_ran} never ran, none failing or stale.`
        : html`<span class="pill warn">agents</span> ${bad.map((r) => `${r.agent}/${r.schedule} ${r.state}`).join(", ")}`
    }${" "}<a href=${withBase("/agents")}>Schedules and health</a>
  </p>`;
}
