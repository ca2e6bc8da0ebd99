import { parse as parseYaml } from "yaml";
import { LINE_TERMINATOR, trimEndOf, wellFormed } from "../../kernel/text.js";

/**
 * Front matter of a markdown file (SKILL.md, a slash command), read the lenient way: a real
 * YAML parser that cannot run code (the `yaml` package, YAML 1.2 core schema, alias bombs
 * refused), a splitter of our own, one retry that quotes values real files leave unquoted, and
 * a warning for everything doubtful. Nothing here ever throws: a broken header costs metadata,
 * never the file.
 */

export interface FrontMatter {
  /** The parsed keys, on a null-prototype object (`__proto__` and friends dropped). */
  data: Record<string, unknown>;
  /** The text after the header, with `\n` line ends. */
  body: string;
  /** A header was found and parsed (possibly on the retry). */
  present: boolean;
  warnings: string[];
}

/** A header this large is not metadata. */
const MAX_HEADER_BYTES = 64 * 1024;
const DANGEROUS_KEYS = new Set(["__proto__", "constructor", "prototype"]);
const NEEDS_QUOTES = /[{}[\]*&#!|>%@`]|: |:$/;

const SIMPLE_KEY = /^[A-Za-z][A-Za-z0-9_-]*$/;
const FALLBACK_KEY = /^[A-Za-z0-9_-]+$/;

/**
 * `key:`, spaces or tabs, then the rest of the line: the key and that rest, when the key is one
 * `keyShape` admits. By hand, since /^(key):[ \t]+(.*?)\s*$/ tries each end of the value against
 * the blanks after it: a 64 KB line of spaces took 4.5 s, on every read of the skill.
 */
function keyAndRest(line: string, keyShape: RegExp): [key: string, rest: string] | undefined {
  const colon = line.indexOf(":");
  if (colon < 0 || !keyShape.test(line.slice(0, colon))) return undefined;
  let start = colon + 1;
  const first = line.charCodeAt(start);
  if (first !== 0x20 && first !== 0x09) return undefined;
  while (line.charCodeAt(start) === 0x20 || line.charCodeAt(start) === 0x09) start++;
  return [line.slice(0, colon), line.slice(start)];
}

/** The value of a plain `key: value` line, as /^(key):[ \t]+(.*?)[ \t]*$/ reads it (exported for its test). */
export function simpleKeyLine(line: string): [key: string, value: string] | undefined {
  const found = keyAndRest(line, SIMPLE_KEY);
  if (!found || LINE_TERMINATOR.test(found[1])) return undefined;
  return [found[0], trimEndOf(found[1], " \t")];
}
/**
 * A plain scalar YAML reads as the very same string: no indicator or space first, no tab, no
 * `: ` or ` #` inside. Tested with `includes` rather than one regex with a lookahead at every
 * character, which cost most of a cold catalog build's header reading.
 */
const PLAIN_FIRST = /^[^\s&*!|>'"%@`{}[\],#?:~-]/;
const isPlainString = (value: string) =>
  PLAIN_FIRST.test(value) && !value.includes("\t") && !value.includes(": ") && !value.includes(" #");
const CORE_SPECIAL =
  /^(?:true|false|null|True|False|Null|TRUE|FALSE|NULL|[-+]?(?:\.inf|\.Inf|\.INF)|\.nan|\.NaN|\.NAN|[-+]?(?:\d[\d_]*)?(?:\.\d*)?(?:[eE][-+]?\d+)?|0x[0-9a-fA-F]+|0o[0-7]+)$/;

/**
 * Most headers are a few `key: plain text` lines; reading those by hand gives exactly what the
 * YAML parser would (each value a string) at a fraction of its cost, which matters with
 * hundreds of skills. Anything else (quotes, lists, blocks, numbers, booleans) goes to the parser.
 * Exported for the test that holds it equal to the parser over a generated corpus.
 */
const HINT_KEYS = new Set(["argument-hint", "argument_hint"]);

export function simpleHeader(text: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  let count = 0;
  // Indexed loops and no destructuring of arrays: code that runs once per file of a cold build
  // is interpreted, where each iteration of a for-of or an array pattern costs a protocol call.
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === "") continue;
    const match = simpleKeyLine(line);
    if (!match) return undefined;
    const key = match[0];
    const value = match[1];
    // An argument hint is display text (`[pr-number] [priority]`), as Claude Code reads it, not a YAML list.
    if (HINT_KEYS.has(key) && !/^["'|>]/.test(value) && !(key in out)) {
      out[key] = value;
      count++;
      continue;
    }
    if (key in out || !isPlainString(value) || CORE_SPECIAL.test(value) || value.endsWith(":"))
      return undefined;
    out[key] = value;
    count++;
  }
  return count > 0 ? out : undefined;
}

/** Deeper than any real header nests; the parser is far from its own bounds here. */
const MAX_NESTING = 64;

/**
 * Whether a header nests deeper than `limit`: in flow collections (`[[[…`, `{a: {a: …`) or in
 * block indicators opened on one line (`- - - …`, `? ? …`). The YAML parser walks each level
 * until its stack runs out, which for a 64 KB header of them took one to two seconds on every
 * read of the file (a catalog build of a hundred planted ones, minutes in the server's one
 * thread); a nesting held by indentation alone costs a 64 KB header no more than 360 levels.
 * Brackets inside quotes count too: a real header never holds 64 unclosed ones.
 */
export function nestsDeeperThan(text: string, limit = MAX_NESTING): boolean {
  let flow = 0;
  let block = 0;
  let lineStart = true;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 0x0a) {
      lineStart = true;
      block = 0;
    } else if (char === 0x5b || char === 0x7b) {
      lineStart = false;
      if (++flow > limit) return true;
    } else if (char === 0x5d || char === 0x7d) {
      lineStart = false;
      if (flow > 0) flow--;
    } else if (lineStart && (char === 0x2d || char === 0x3f || char === 0x3a)) {
      // `- `, `? ` or `: ` opening the line (after blanks or other such indicators).
      const next = text.charCodeAt(i + 1);
      if (next === 0x20 || next === 0x09) {
        if (++block > limit) return true;
        i++;
      } else lineStart = false;
    } else if (char !== 0x20 && char !== 0x09) lineStart = false;
  }
  return false;
}

function parse(text: string): unknown {
  // `logLevel: "error"`: a tag the core schema does not know (`!!js/function`, `!foo`) is read as
  // plain text, and by default the parser also printed a Node warning to stderr, where a file of
  // the repository's then wrote into `cairn`'s own output at every fresh read.
  return (
    simpleHeader(text) ??
    parseYaml(text, { schema: "core", maxAliasCount: 100, prettyErrors: false, logLevel: "error" })
  );
}

/**
 * A `key: value` line whose value might need quotes: /^(key):[ \t]+(.+?)\s*$/ as far as it
 * matters, since a value of blanks alone never needs them (exported for its test).
 */
export function quotableLine(line: string): [key: string, value: string] | undefined {
  const found = keyAndRest(line, FALLBACK_KEY);
  const value = found?.[1].trimEnd();
  return found && value && !LINE_TERMINATOR.test(value) ? [found[0], value] : undefined;
}

/** Claude Code's own fallback: quote simple values that hold YAML-special characters, then retry. */
function quoteSimpleValues(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      const found = quotableLine(line);
      if (!found) return line;
      const [key, value] = found;
      if (/^["']/.test(value) || !NEEDS_QUOTES.test(value)) return line;
      return `${key}: ${JSON.stringify(value)}`;
    })
    .join("\n");
}

function safeCopy(value: Record<string, unknown>): Record<string, unknown> {
  const out = Object.create(null) as Record<string, unknown>;
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (!DANGEROUS_KEYS.has(key)) out[wellFormed(key)] = wellFormedValue(value[key]);
  }
  return out;
}

/** A parsed value with every string in it well formed (YAML escapes can make lone surrogates). */
function wellFormedValue(value: unknown): unknown {
  if (typeof value === "string") return wellFormed(value);
  if (Array.isArray(value)) return value.map(wellFormedValue);
  if (typeof value === "object" && value !== null && !(value instanceof Date)) {
    return safeCopy(value as Record<string, unknown>);
  }
  return value;
}

export function readFrontMatter(raw: string): FrontMatter {
  const warnings: string[] = [];
  let text = raw;
  if (text.startsWith("\uFEFF")) {
    text = text.slice(1);
    warnings.push("starts with a byte-order mark (stripped)");
  }
  if (text.includes("\r\n")) {
    text = text.replace(/\r\n/g, "\n");
    warnings.push("has CRLF line ends (read as LF)");
  }
  const empty = { data: Object.create(null) as Record<string, unknown>, present: false, warnings };
  const firstBreak = text.indexOf("\n");
  const firstLine = (firstBreak === -1 ? text : text.slice(0, firstBreak)).trimEnd();
  if (firstLine !== "---") {
    if (/^---\s*\S/.test(firstLine)) {
      warnings.push(`a header in another language (${JSON.stringify(firstLine.slice(0, 20))}) is never read`);
    }
    return { ...empty, body: text };
  }
  const rest = text.slice(firstBreak + 1);
  const close = /^(?:---|\.\.\.)[ \t]*$/m.exec(rest);
  if (!close) {
    warnings.push("the front matter is never closed (no `---` line): the whole file is read as the body");
    return { ...empty, body: text };
  }
  const header = rest.slice(0, close.index);
  const after = rest.slice(close.index + close[0].length);
  // Not `.replace(/^\n/, "")`, which copies the whole rest of a 4 KB head for each file.
  const body = after.startsWith("\n") ? after.slice(1) : after;
  if (Buffer.byteLength(header) > MAX_HEADER_BYTES) {
    warnings.push(`the front matter is over ${MAX_HEADER_BYTES} bytes: ignored`);
    return { ...empty, body };
  }
  if (nestsDeeperThan(header)) {
    warnings.push(`the front matter nests more than ${MAX_NESTING} levels deep: ignored`);
    return { ...empty, body };
  }
  let value: unknown;
  try {
    value = parse(header);
  } catch (first) {
    try {
      value = parse(quoteSimpleValues(header));
      warnings.push("the front matter is not valid YAML; read after quoting its plain values");
    } catch {
      warnings.push(
        `the front matter is not valid YAML (${(first as Error).message.split("\n")[0]}): ignored`,
      );
      return { ...empty, body };
    }
  }
  if (value === null || value === undefined) {
    warnings.push("the front matter is empty");
    return { ...empty, body };
  }
  if (typeof value !== "object" || Array.isArray(value)) {
    warnings.push("the front matter is not a map of keys: ignored");
    return { ...empty, body };
  }
  return { data: safeCopy(value as Record<string, unknown>), body, present: true, warnings };
}

/** A scalar as text (YAML may give a number, a boolean, or a one-item list for `[x]`). */
export function asText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item !== "object")) return `[${value.join(", ")}]`;
  return undefined;
}

/** YAML 1.2 leaves `yes`/`on` as strings; accept the spellings people use for a boolean. */
export function asBoolean(value: unknown): boolean | undefined {
  if (typeof value === "boolean") return value;
  if (typeof value === "string") {
    const word = value.trim().toLowerCase();
    if (["true", "yes", "on", "1"].includes(word)) return true;
    if (["false", "no", "off", "0"].includes(word)) return false;
  }
  return undefined;
}

/**
 * Characters that hide or reorder text: every format character (bidi marks, embeddings,
 * overrides and isolates, the Arabic letter mark, zero-width ones, the BOM, the soft hyphen,
 * interlinear annotation marks, tag characters that spell ASCII unseen). A class, not a list of
 * ranges: a list left U+061C, U+00AD and U+FFF9-FFFB through to the model.
 */
const HIDDEN = /\p{Cf}/gu;
/** Control characters, C0 and C1 (CSI U+009B acts as ESC [), but the whitespace folded below. */
const CONTROLS = /(?![\t\n\v\f\r\u0085])\p{Cc}/gu;
/** Whitespace, NEL (U+0085, a line break to many readers) with it: folded into one space. */
const WHITESPACE = /[\s\u0085]+/g;

/**
 * Text every step below leaves as it is: printable ASCII (nothing hidden, no control, no
 * whitespace but single spaces), not starting or ending with a space, no `<` or `>`. Most
 * descriptions are; testing that once is cheaper than six passes that change nothing.
 */
const ALREADY_CLEAN = /^(?:[!-;=?-~](?: ?[!-;=?-~])*)?$/;

/** One line a model reads as a tool description: whitespace collapsed, hidden characters gone, `<>` escaped. */
export function cleanDescription(text: string): string {
  return ALREADY_CLEAN.test(text) ? text : cleanFully(text);
}

/** Every step of `cleanDescription`, applied whatever the text (exported for its equality test). */
export function cleanFully(text: string): string {
  return wellFormed(text)
    .replace(HIDDEN, "")
    .replace(CONTROLS, "")
    .replace(WHITESPACE, " ")
    .trim()
    .replace(/</g, "‹")
    .replace(/>/g, "›");
}

/** Hidden characters in a body made visible (`[U+E0041]`), so nothing reaches a model unseen. */
export function revealHidden(text: string): { text: string; found: number } {
  let found = 0;
  const out = text.replace(HIDDEN, (char) => {
    found++;
    return `[U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}]`;
  });
  return { text: out, found };
}

/** Every control and format character, and the line and paragraph separators. */
const UNSHOWABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/**
 * A skill's or command's name (its folder or file name) holding a control or hidden character:
 * shown to a model it could forge a line in what it reads (`x\nIGNORE…`) or hide text, and no
 * one types it. Such items are dropped, with the reason.
 */
export const unshowableName = (name: string) => UNSHOWABLE.test(name);

/** A path with each control and hidden character shown by its code (`[U+000A]`), for reports. */
export function showPath(path: string): string {
  return path.replace(
    new RegExp(UNSHOWABLE.source, "gu"),
    (char) => `[U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}]`,
  );
}

/** The first paragraph of a body, as a description of last resort. */
export function firstParagraph(body: string): string {
  const paragraph = body
    .split(/\n\s*\n/)
    .map((part) => part.replace(/^#+\s*/gm, "").trim())
    .find((part) => part !== "");
  return paragraph ?? "";
}
