import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { withBase } from "./base.js";
import { html } from "./html.js";
import { readable } from "./readable.js";

/** Where an id in any text leads: tasks, goals, runs, attempts. */
const ID_PATTERN = /\b(AT|T|G|R)-\d+\b/g;
const ROUTES: Record<string, string> = { T: "/tasks/", G: "/goals/", R: "/runs/", AT: "/attempts/" };

export const hrefOf = (id: string) => withBase(`${ROUTES[id.split("-")[0] as string] ?? "/"}${id}`);

export function IdLink({ id }: { id: string }) {
  return html`<a href=${hrefOf(id)} class="id">${id}</a>`;
}

/**
 * Text written by agents or people: always a text node (never HTML), with the ids in it made
 * links. Terminal colour codes are dropped; other invisible characters are shown by their code.
 */
export function Text({ text }: { text: string | null | undefined }) {
  if (!text) return null;
  // Answers are readable already (api.ts); text from anywhere else is made so here.
  const clean = readable(text);
  const parts: ComponentChildren[] = [];
  let last = 0;
  for (const match of clean.matchAll(ID_PATTERN)) {
    const index = match.index ?? 0;
    if (index > last) parts.push(clean.slice(last, index));
    parts.push(html`<${IdLink} id=${match[0]} />`);
    last = index + match[0].length;
  }
  if (last < clean.length) parts.push(clean.slice(last));
  return html`<span class="text">${parts}</span>`;
}

export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return "";
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} d ago`;
}

/** A relative time, with the exact ISO time on hover and for assistive technology. */
export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return html`<span class="muted">—</span>`;
  return html`<time datetime=${at} title=${at}>${ago(at)}</time>`;
}

/** The UI never writes: each action is the CLI command to run, one click from the clipboard. */
export function Copy({ command, label }: { command: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () => {
    navigator.clipboard?.writeText(command).then(
      () => {
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      },
      () => setCopied(false),
    );
  };
  return html`<span class="copy"
    ><code>${command}</code
    ><button type="button" onClick=${copy} aria-label=${`Copy: ${command}`} title="Copy the command">
      ${copied ? "Copied" : (label ?? "Copy")}
    </button></span
  >`;
}

export function Status({ status }: { status: string }) {
  return html`<span class=${`pill status-${status}`}>${status}</span>`;
}

export function Verdict({ verdict, reverted }: { verdict: string | null; reverted?: boolean }) {
  const name = verdict ?? "open";
  // A reverted attempt's changes are undone: say that, whatever it was decided.
  const shown = reverted ? "reverted" : name;
  return html`<span class=${`pill verdict-${reverted ? "revert" : name}`}>${shown}</span>`;
}

export function Section({
  title,
  count,
  children,
}: {
  title: string;
  count?: number;
  children: ComponentChildren;
}) {
  const id = `s-${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return html`<section aria-labelledby=${id}>
    <h2 id=${id}>${title}${count !== undefined ? html` <span class="count">${count}</span>` : null}</h2>
    ${children}
  </section>`;
}

export function Empty({ children }: { children: ComponentChildren }) {
  return html`<p class="muted empty">${children}</p>`;
}

/** Loading and error states, shared by every view. */
export function Loaded<T>({
  state,
  children,
}: {
  state: { data: T | undefined; error: string | undefined };
  children: (data: T) => ComponentChildren;
}) {
  if (state.error && !state.data) return html`<p class="error" role="alert">${state.error}</p>`;
  if (!state.data) return html`<p class="muted" aria-busy="true">Loading…</p>`;
  return html`${state.error ? html`<p class="error" role="alert">${state.error}</p>` : null}${children(state.data)}`;
}

export const plural = (n: number, word: string) => `${n.toLocaleString("en")} ${word}${n === 1 ? "" : "s"}`;
