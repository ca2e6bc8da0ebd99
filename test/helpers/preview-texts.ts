import { TITLE_CHARS } from "../../src/domains/limits/limits.js";

/**
 * Texts as a list previews them, for holding a store's heads to the whole texts: short and long,
 * ASCII (measured in SQL) and not (read whole), cut in the middle of a character pair, and the
 * ones SQL does not count as JavaScript does (U+0000, PostgreSQL's text escape U+E000, a lone
 * surrogate, characters past U+FFFF). The fourth is ASCII of `longAscii` characters and more.
 */
export const previewTexts = (longAscii: number): string[] => [
  "short",
  "a".repeat(TITLE_CHARS),
  "b".repeat(TITLE_CHARS + 1),
  `long ${"c".repeat(longAscii)}`,
  "é中— ".repeat(2_000),
  `${"x".repeat(TITLE_CHARS - 1)}😀${"tail".repeat(500)}`,
  "😀".repeat(1_000),
  `before\u0000after ${"d".repeat(3_000)}`,
  `\uE000 private ${"e".repeat(3_000)}`,
  `\uD800 lone ${"f".repeat(3_000)}`,
  "한국어 ".repeat(1_000),
];
