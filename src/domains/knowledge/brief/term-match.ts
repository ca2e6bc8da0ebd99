/**
 * Which glossary terms a task's text uses: whole words, case-insensitive, as the text shows.
 *
 * A word is a run of letters, digits and combining marks: a vowel sign or virama inside a
 * Devanagari word, or an accent typed decomposed (macOS writes "café" as "cafe" and U+0301),
 * is part of its word, never a break in it. Counted as a break, "कम" (less) was found inside
 * "कमी" (shortage), and "cafe" inside a decomposed "café".
 */
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
const ONE_WORD = /^[\p{L}\p{N}\p{M}]+$/u;
const WORD_RUNS = /[\p{L}\p{N}\p{M}]+/gu;
const NOT_WORD = /[^\p{L}\p{N}\p{M}]+/u;

/**
 * Scripts written without spaces between words: there a term is found wherever it stands
 * ("データベースを移行する" uses "データベース"), or no term in them would ever be found.
 */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/**
 * The form both sides are compared in: lower-cased, composed (NFC), without the format
 * characters a brief drops from what it shows (a term is stored without them), each run of white
 * space one space (a term spelled with two spaces, a tab or a no-break space is the same term).
 */
export const matchForm = (text: string): string =>
  text
    .toLowerCase()
    .normalize("NFC")
    .replace(/\p{Cf}+/gu, "")
    .replace(/\s+/gu, " ");

/** The whole character (a surrogate pair is one) that ends just before `index`. */
function charBefore(text: string, index: number): string {
  const low = text.charCodeAt(index - 1);
  const pair = low >= 0xdc00 && low <= 0xdfff && index >= 2;
  return pair ? text.slice(index - 2, index) : text.charAt(index - 1);
}

/** The whole character that starts at `index`. */
const charAt = (text: string, index: number): string =>
  String.fromCodePoint(text.codePointAt(index) as number);

/**
 * Whether the character beside an occurrence, `outside` the term next to its `inside` edge,
 * makes it no whole word: a letter, digit or mark there does ("walk" holds no "wal", "asp.net" no
 * ".net"), unless either side is of a script written without spaces.
 */
const continues = (outside: string, inside: string): boolean =>
  WORD_CHAR.test(outside) && !UNSPACED.test(outside) && !UNSPACED.test(inside);

/**
 * A test of terms against one text. Every term is tested by a plain word lookup or a substring
 * search, with no pattern built per term: a pattern with Unicode classes costs about a
 * millisecond to compile, and 5,000 terms of two words made every brief take ten seconds.
 */
export function termMatcher(text: string): (term: string) => boolean {
  const form = matchForm(text);
  const words = new Set(form.split(NOT_WORD));
  return (term) => {
    const wanted = matchForm(term).trim();
    if (wanted === "") return false;
    const unspaced = UNSPACED.test(wanted);
    if (!unspaced) {
      if (ONE_WORD.test(wanted)) return words.has(wanted);
      // Each word of a term found whole is a whole word of the text: most terms end here.
      for (const run of wanted.match(WORD_RUNS) ?? []) if (!words.has(run)) return false;
    }
    const first = charAt(wanted, 0);
    const last = charBefore(wanted, wanted.length);
    for (let at = form.indexOf(wanted); at >= 0; at = form.indexOf(wanted, at + 1)) {
      const end = at + wanted.length;
      if (at > 0 && continues(charBefore(form, at), first)) continue;
      if (end < form.length && continues(charAt(form, end), last)) continue;
      return true;
    }
    return false;
  };
}
