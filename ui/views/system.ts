import { useView } from "../api.js";
import { Copy, Empty, Loaded, Section, Time } from "../components.js";
import { html } from "../html.js";
import { useLive } from "../live.js";
import type { AgentList, SystemView } from "../types.js";
import { ScheduleHealth } from "./agents.js";

const size = (bytes: number) =>
  bytes > 1 << 20 ? `${(bytes / (1 << 20)).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;

export function System() {
  const state = useView<SystemView>("system");
  const live = useLive();
  return html`<h1>System</h1>
    <${Loaded} state=${state}>
      ${(s: SystemView) => html`<dl class="facts">
        <dt>cairn</dt><dd>${s.cairn} (MCP ${s.protocol}, schema ${s.schema})</dd>
        <dt>Node.js</dt><dd>${s.node}</dd>
        <dt>Workspace</dt><dd><code>${s.workspace}</code></dd>
        <dt>Database</dt><dd><code>${s.database}</code>, ${size(s.database_bytes)}</dd>
        <dt>Last event</dt><dd>${s.last_event ? html`#${s.last_event.id} ${s.last_event.action} <${Time} at=${s.last_event.at} />` : "none"}</dd>
        <dt>Live</dt><dd>${live.state}, last event seen #${live.lastEvent || "—"}</dd>
      </dl>
      <${Copy} command="cairn status --json" />`}
    <//>`;
}

export function Agents() {
  const state = useView<AgentList>("agent list", { all: true });
  return html`<h1>Agents</h1>
    <${Section} title="Identities">
      <${Loaded} state=${state}>
        ${(list: AgentList) =>
          list.agents.length === 0
            ? html`<${Empty}>No agents yet. <${Copy} command="cairn agent add NAME --role ROLE" /><//>`
            : html`<table>
                <thead><tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Grant</th><th scope="col">Parent</th><th scope="col">State</th></tr></thead>
                <tbody>${list.agents.map((a) => html`<tr data-row><td>${a.id}</td><td>${a.name}</td><td>${a.role}</td><td>${a.grant}</td><td>${a.parent ?? ""}</td><td>${a.retired_at ? "retired" : "active"}</td></tr>`)}</tbody>
              </table>`}
      <//>
    <//>
    <${ScheduleHealth} />`;
}
