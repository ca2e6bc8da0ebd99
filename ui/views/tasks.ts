import { useView } from "../api.js";
import { withBase } from "../base.js";
import { Empty, IdLink, Loaded, Status, Text } from "../components.js";
import { html } from "../html.js";
import { useRoute, withQuery } from "../router.js";
import type { TaskList } from "../types.js";
import { FilterForm } from "./filters.js";

const DEFAULT_PAGE = 100;
const ORDERS = ["tree", "priority", "status", "updated", "created", "title"];

export function Tasks() {
  const { path, query } = useRoute();
  const page = Math.max(1, Number(query.get("page") ?? "1") || 1);
  const PAGE = Math.min(500, Math.max(1, Number(query.get("per") ?? DEFAULT_PAGE) || DEFAULT_PAGE));
  const state = useView<TaskList>("task list", {
    status: query
      .getAll("status")
      .flatMap((s) => s.split(","))
      .filter(Boolean),
    owner: query.get("owner") ?? undefined,
    label: query.get("label") ?? undefined,
    text: query.get("text") ?? undefined,
    order: query.get("order") ?? undefined,
    limit: PAGE,
    offset: (page - 1) * PAGE,
  });
  return html`<h1>Tasks</h1>
    <${FilterForm}
      fields=${[
        { name: "text", label: "Search", placeholder: "words in title or context" },
        { name: "status", label: "Status", options: ["open", "active", "blocked", "done", "dropped"] },
        { name: "owner", label: "Owner", placeholder: "A-1" },
        { name: "label", label: "Label" },
        { name: "order", label: "Sort", options: ORDERS.slice(1), none: "tree" },
      ]}
    />
    <${Loaded} state=${state}>
      ${(list: TaskList) => {
        const first = list.total === 0 ? 0 : (page - 1) * PAGE + 1;
        const last = (page - 1) * PAGE + list.tasks.length;
        return html`
          <p class="summary" aria-live="polite">
            ${list.total === 0 ? "No tasks match." : `Showing ${first.toLocaleString("en")}–${last.toLocaleString("en")} of ${list.total.toLocaleString("en")}`}
          </p>
          ${list.tasks.length === 0 && list.total > 0 ? html`<${Empty}>This page is past the end.<//>` : null}
          ${
            list.tasks.length > 0
              ? html`<table>
                <thead><tr><th scope="col">Id</th><th scope="col">Status</th><th scope="col">Priority</th><th scope="col">Title</th><th scope="col">Owner</th></tr></thead>
                <tbody>
                  ${list.tasks.map(
                    (t) => html`<tr data-row>
                      <td><${IdLink} id=${t.id} /></td><td><${Status} status=${t.status} /></td>
                      <td><span class=${`prio prio-${t.priority}`}>${t.priority}</span></td>
                      <td><${Text} text=${t.title} /></td><td>${t.owner ?? ""}</td>
                    </tr>`,
                  )}
                </tbody>
              </table>`
              : null
          }
          <nav class="pager" aria-label="Pages">
            ${page > 1 ? html`<a href=${withBase(withQuery(path, query, { page: page > 2 ? String(page - 1) : null }))} rel="prev">Previous</a>` : null}
            ${list.next_offset !== null ? html`<a href=${withBase(withQuery(path, query, { page: String(page + 1) }))} rel="next">Next</a>` : null}
          </nav>`;
      }}
    <//>`;
}
