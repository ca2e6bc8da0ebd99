import { useEffect, useState } from "preact/hooks";
import { withBase, withoutBase } from "./base.js";

/** Every view and filter lives in the URL: path routes, filters in the query string. Paths here are the app's, without the launch's prefix. */
export interface Route {
  path: string;
  query: URLSearchParams;
}

const current = (): Route => ({
  path: withoutBase(location.pathname) ?? location.pathname,
  query: new URLSearchParams(location.search),
});

const listeners = new Set<() => void>();

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, "", withBase(to));
  else history.pushState(null, "", withBase(to));
  for (const listener of listeners) listener();
  if (!replace) window.scrollTo(0, 0);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const update = () => setRoute(current());
    listeners.add(update);
    window.addEventListener("popstate", update);
    // The effect runs after the first paint: a history move made in between (a back button, a
    // script's pushState) fired before anyone listened, so the URL is read once more now.
    const now = current();
    if (now.path !== route.path || now.query.toString() !== route.query.toString()) update();
    return () => {
      listeners.delete(update);
      window.removeEventListener("popstate", update);
    };
  }, []);
  return route;
}

/** A path with a changed query: empty values are dropped so URLs stay short. */
export function withQuery(
  path: string,
  query: URLSearchParams,
  changes: Record<string, string | null>,
): string {
  const next = new URLSearchParams(query);
  for (const [key, value] of Object.entries(changes)) {
    next.delete(key);
    if (value !== null && value !== "") next.set(key, value);
  }
  const search = next.toString();
  return `${path}${search ? `?${search}` : ""}`;
}

/** Same-origin link clicks become history pushes instead of page loads. */
export function interceptLinks(): void {
  document.addEventListener("click", (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey)
      return;
    const anchor = (event.target as Element).closest("a");
    if (!anchor || anchor.target || anchor.origin !== location.origin || anchor.hasAttribute("download"))
      return;
    const path = withoutBase(anchor.pathname);
    if (path === undefined) return;
    event.preventDefault();
    navigate(path + anchor.search);
  });
}
