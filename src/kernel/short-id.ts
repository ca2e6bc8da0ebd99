/**
 * Short ids (`G-3`, `AT-12`, `F-7`) are typed by hand and read aloud, so `g-3`, ` G-3 ` and `3`
 * name the same record as `G-3`. Anything else is left as typed: it names no record of this kind,
 * and the lookup's not-found error says so, quoting it.
 */
export function canonicalShortId(raw: string, prefix: string): string {
  const text = raw.trim();
  if (/^\d+$/.test(text)) return `${prefix}-${text}`;
  const match = /^([a-z]+)-(\d+)$/i.exec(text);
  return match && match[1]?.toUpperCase() === prefix ? `${prefix}-${match[2]}` : raw;
}
