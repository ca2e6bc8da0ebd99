import { navigate } from "./router.js";

/** `g` then a letter switches views, as in many keyboard-first tools. */
export const GO_KEYS: Record<string, { path: string; label: string }> = {
  n: { path: "/", label: "Now" },
  b: { path: "/board", label: "Board" },
  t: { path: "/tasks", label: "Tasks" },
  g: { path: "/goals", label: "Goals" },
  r: { path: "/review", label: "Review" },
  a: { path: "/activity", label: "Activity" },
  e: { path: "/agents", label: "Agents" },
  s: { path: "/system", label: "System" },
};

const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement &&
  (target.isContentEditable || ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName));

/** j/k move between rows, Enter opens the row's first link, / goes to the filter, ? shows help. */
export function installKeys(toggleHelp: () => void): void {
  let pendingGo = false;
  document.addEventListener("keydown", (event) => {
    if (event.metaKey || event.ctrlKey || event.altKey) return;
    if (event.key === "Escape") {
      (document.activeElement as HTMLElement | null)?.blur();
      return;
    }
    if (typing(event.target)) return;
    if (pendingGo) {
      pendingGo = false;
      const target = GO_KEYS[event.key];
      if (target) {
        event.preventDefault();
        navigate(target.path);
      }
      return;
    }
    if (event.key === "g") {
      pendingGo = true;
      return;
    }
    if (event.key === "?") return toggleHelp();
    if (event.key === "/") {
      const input = document.querySelector<HTMLInputElement>("main form input, main form select");
      if (input) {
        event.preventDefault();
        input.focus();
      }
      return;
    }
    if (event.key === "j" || event.key === "k") {
      const rows = [...document.querySelectorAll<HTMLElement>("main [data-row]")];
      if (rows.length === 0) return;
      event.preventDefault();
      const at = rows.findIndex((row) => row.classList.contains("focused"));
      const next = Math.min(rows.length - 1, Math.max(0, at + (event.key === "j" ? 1 : -1)));
      rows[at]?.classList.remove("focused");
      const row = rows[next] as HTMLElement;
      row.classList.add("focused");
      (row.querySelector<HTMLElement>("a, button") ?? row).focus();
    }
  });
}
