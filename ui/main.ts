import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { withBase } from "./base.js";
import { html } from "./html.js";
import { GO_KEYS, installKeys } from "./keys.js";
import { connectLive, type Live, LiveContext } from "./live.js";
import { interceptLinks, useRoute } from "./router.js";
import { Activity } from "./views/activity.js";
import { Attempt, Run } from "./views/attempt.js";
import { Board } from "./views/board.js";
import { Goal, Goals } from "./views/goals.js";
import { Now } from "./views/now.js";
import { Review } from "./views/review.js";
import { Agents, System } from "./views/system.js";
import { Task } from "./views/task.js";
import { Tasks } from "./views/tasks.js";

const NAV = [
  { path: "/", label: "Now" },
  { path: "/board", label: "Board" },
  { path: "/tasks", label: "Tasks" },
  { path: "/goals", label: "Goals" },
  { path: "/review", label: "Review" },
  { path: "/activity", label: "Activity" },
  { path: "/agents", label: "Agents" },
  { path: "/system", label: "System" },
];

function page(path: string) {
  const [, first, id] = path.split("/");
  if (!first) return html`<${Now} />`;
  if (id && first === "tasks") return html`<${Task} id=${id} key=${id} />`;
  if (id && first === "goals") return html`<${Goal} id=${id} key=${id} />`;
  if (id && first === "attempts") return html`<${Attempt} id=${id} key=${id} />`;
  if (id && first === "runs") return html`<${Run} id=${id} key=${id} />`;
  const views: Record<string, () => unknown> = {
    board: () => html`<${Board} />`,
    tasks: () => html`<${Tasks} />`,
    goals: () => html`<${Goals} />`,
    review: () => html`<${Review} />`,
    activity: () => html`<${Activity} />`,
    agents: () => html`<${Agents} />`,
    system: () => html`<${System} />`,
  };
  return (
    views[first]?.() ??
    html`<h1>Not found</h1><p>No view at <code>${path}</code>. <a href=${withBase("/")}>Go to Now</a></p>`
  );
}

const BADGE: Record<Live["state"], string> = {
  connecting: "Connecting…",
  live: "Live",
  reconnecting: "Reconnecting…",
  offline: "Offline",
};

function Badge({ live }: { live: Live }) {
  const [, tick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => tick((n) => n + 1), 5_000);
    return () => clearInterval(timer);
  }, []);
  const since = live.since ? live.since.toLocaleTimeString("en-GB") : "—";
  return html`<div class="live" role="status" aria-live="polite">
    <span class=${`badge badge-${live.state}`} data-state=${live.state}><span aria-hidden="true" class="led"></span>${BADGE[live.state]}</span>
    <span class="muted asof">${live.state === "offline" ? `offline since ${since}` : `data as of ${since}`}</span>
  </div>`;
}

function themeNow(): "light" | "dark" {
  const chosen = document.documentElement.dataset.theme;
  if (chosen === "light" || chosen === "dark") return chosen;
  return matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function App() {
  const route = useRoute();
  const [live, setLive] = useState<Live>({
    state: "connecting",
    revision: 0,
    lastEvent: 0,
    since: undefined,
    recent: [],
  });
  const [help, setHelp] = useState(false);
  const [theme, setTheme] = useState(themeNow);
  useEffect(() => connectLive(setLive), []);
  useEffect(() => installKeys(() => setHelp((shown) => !shown)), []);
  const toggleTheme = () => {
    const next = theme === "dark" ? "light" : "dark";
    document.documentElement.dataset.theme = next;
    localStorage.setItem("cairn-theme", next);
    setTheme(next);
  };
  const current = (path: string) => (path === "/" ? route.path === "/" : route.path.startsWith(path));
  return html`<${LiveContext.Provider} value=${live}>
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <a class="brand" href=${withBase("/")}>cairn</a>
      <nav aria-label="Views">
        ${NAV.map((item) => html`<a href=${withBase(item.path)} aria-current=${current(item.path) ? "page" : undefined}>${item.label}</a>`)}
      </nav>
      <${Badge} live=${live} />
      <button type="button" class="theme" onClick=${toggleTheme} aria-label=${`Switch to ${theme === "dark" ? "light" : "dark"} theme`}>
        ${theme === "dark" ? "Light" : "Dark"}
      </button>
    </header>
    <main id="main" tabindex="-1">${page(route.path)}</main>
    ${
      help
        ? html`<aside class="help" aria-label="Keyboard shortcuts">
          <h2>Keyboard</h2>
          <ul>
            ${Object.entries(GO_KEYS).map(([key, target]) => html`<li><kbd>g</kbd> <kbd>${key}</kbd> ${target.label}</li>`)}
            <li><kbd>j</kbd> / <kbd>k</kbd> next / previous row, <kbd>Enter</kbd> opens it</li>
            <li><kbd>/</kbd> filter, <kbd>Esc</kbd> leave a field, <kbd>?</kbd> this help</li>
          </ul>
          <button type="button" onClick=${() => setHelp(false)}>Close</button>
        </aside>`
        : null
    }
    <footer class="muted">Read-only: every action is a command to copy. Press <kbd>?</kbd> for keys.</footer>
  <//>`;
}

const saved = localStorage.getItem("cairn-theme");
if (saved === "light" || saved === "dark") document.documentElement.dataset.theme = saved;
interceptLinks();
const root = document.getElementById("app") as HTMLElement;
root.textContent = "";
render(html`<${App} />`, root);
