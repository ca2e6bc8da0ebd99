import { useEffect, useRef, useState } from "preact/hooks";
import { withBase } from "./base.js";
import { useLiveRevision } from "./live.js";
import { readableAnswer } from "./readable.js";

/** What `/api/…` answers: a command's JSON, a refusal, or a typed error. */
export interface ViewState<T> {
  data: T | undefined;
  error: string | undefined;
  /** When the data shown was read (the server's clock is not involved). */
  asOf: Date | undefined;
}

export type Query = Record<string, string | number | boolean | readonly string[] | undefined>;

export function apiPath(command: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === "") continue;
    if (Array.isArray(value)) for (const item of value) params.append(key, item);
    else params.set(key, String(value));
  }
  const search = params.toString();
  return withBase(`/api/${command.split(" ").join("/")}${search ? `?${search}` : ""}`);
}

export async function fetchView<T>(command: string, query: Query = {}): Promise<T> {
  const response = await fetch(apiPath(command, query), { headers: { Accept: "application/json" } });
  // Made readable whole, the error's message with it (readable.ts says why).
  const body = readableAnswer(await response.json()) as {
    error?: { message: string; hint: string | null };
  } & T;
  if (!response.ok || body.error) {
    throw new Error(
      body.error
        ? `${body.error.message}${body.error.hint ? ` (${body.error.hint})` : ""}`
        : response.statusText,
    );
  }
  return body;
}

/** Read a view, and read it again whenever the workspace changes (live), keeping what is shown meanwhile. */
export function useView<T>(command: string, query: Query = {}): ViewState<T> {
  const key = apiPath(command, query);
  const revision = useLiveRevision();
  const [state, setState] = useState<ViewState<T>>({ data: undefined, error: undefined, asOf: undefined });
  const shownKey = useRef(key);
  useEffect(() => {
    let current = true;
    if (shownKey.current !== key) {
      shownKey.current = key;
      setState({ data: undefined, error: undefined, asOf: undefined });
    }
    fetchView<T>(command, query)
      .then((data) => current && setState({ data, error: undefined, asOf: new Date() }))
      .catch((error: Error) => current && setState((old) => ({ ...old, error: error.message })));
    return () => {
      current = false;
    };
  }, [key, revision]);
  return state;
}
