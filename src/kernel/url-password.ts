/**
 * What counts as a password in a store URL, in one place: the user part's, and the query
 * parameters the PostgreSQL driver reads as secrets. `?password=` connects exactly as a password
 * in the user part does, and the driver decodes parameter names, so `?pass%77ord=` is one too.
 * Here, in the kernel, so the store (what cairn.toml may hold, what output shows) and a child's
 * environment (child.ts) keep the same ones out.
 */

const SECRET_PARAMETERS = ["password", "sslpassword"];

/** A parameter name as the driver reads it: percent-decoded (a malformed escape stays as written). */
function decodedName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name.replace(/%[0-9a-f]{2}/gi, (sequence) => {
      try {
        return decodeURIComponent(sequence);
      } catch {
        return sequence;
      }
    });
  }
}

/** Is this query parameter a password, however it is spelt (any case, percent-encoded)? */
const isSecretParameter = (name: string): boolean =>
  SECRET_PARAMETERS.includes(decodedName(name).toLowerCase());

/**
 * Every `name=value` parameter of a text (a URL that may not parse): after `?`, `&` or `;`, up
 * to the next separator, `#` or whitespace. Group 1 is the separator, 2 the name, 3 the value.
 */
const PARAMETER = /([?&;])([^=&;#\s?]*)=([^&;#\s]*)/g;

/** The text with every password parameter's value replaced by `shown`. */
export function replaceSecretParameters(text: string, shown: string): string {
  return text.replace(PARAMETER, (whole, separator: string, name: string) =>
    isSecretParameter(name) ? `${separator}${name}=${shown}` : whole,
  );
}

/** Does a parsed URL's query hold a password parameter? */
export const queryHoldsPassword = (params: URLSearchParams): boolean =>
  [...params.keys()].some(isSecretParameter);

/** Remove every password parameter from a parsed URL's query (names as URLSearchParams decodes them). */
export function dropSecretParameters(params: URLSearchParams): void {
  for (const name of new Set(params.keys())) if (isSecretParameter(name)) params.delete(name);
}

/**
 * The passwords a store URL carries, each as written and as the driver decodes it: what a
 * program handed the URL could print on its own once it picked the URL apart. None for a URL
 * that does not parse (the store could not open it either).
 */
export function passwordsIn(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const found = [parsed.password, decodedName(parsed.password)];
  for (const [name, value] of parsed.searchParams)
    if (isSecretParameter(name)) found.push(value, encodeURIComponent(value));
  return [...new Set(found)].filter((password) => password.length > 0);
}

/**
 * A store URL without any password it carries (in the user part or as a parameter): what a
 * process cairn starts may see of it. A URL with none is returned as it was.
 */
export function urlWithoutPassword(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Not a URL the store could open either; still, nothing between `:` and `@`, and no
    // password parameter, passes.
    return url
      .replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*):[^@]*@/i, "$1@")
      .replace(PARAMETER, (whole, separator: string, name: string) =>
        isSecretParameter(name) ? (separator === "?" ? "?" : "") : whole,
      );
  }
  if (!parsed.password && !queryHoldsPassword(parsed.searchParams)) return url;
  parsed.password = "";
  dropSecretParameters(parsed.searchParams);
  return parsed.toString();
}
