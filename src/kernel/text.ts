/**
 * Quote a caller's value inside a message. Hostile or huge input must never be echoed whole:
 * a 5 MB name would turn one error into megabytes on every face (and past a client's buffer).
 */
export function quoteValue(value: string, max = 60): string {
  if (value.length <= max) return JSON.stringify(value);
  return `${JSON.stringify(value.slice(0, max))}… (${value.length} characters)`;
}
