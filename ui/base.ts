/**
 * Every URL of the dashboard lives under the launch's path prefix (src/faces/ui/guard.ts says
 * why): the folder above the assets/ this script was loaded from. The app's own paths
 * (`/tasks/T-1`) are written without it, and take it on where the browser sees them.
 */
export const BASE = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** An app path as the browser asks for it: in a link, the address bar, a request. */
export const withBase = (path: string): string => `${BASE}${path}`;

/** The app path of a path the browser shows; undefined for one outside the dashboard. */
export function withoutBase(pathname: string): string | undefined {
  if (pathname === BASE) return "/";
  return pathname.startsWith(`${BASE}/`) ? pathname.slice(BASE.length) : undefined;
}
