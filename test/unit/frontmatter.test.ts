import { describe, expect, it, vi } from "vitest";
import { parse } from "yaml";
import { rng } from "../../bench/knowledge-corpus.js";
import {
  cleanDescription,
  cleanFully,
  quotableLine,
  readFrontMatter,
  simpleHeader,
  simpleKeyLine,
} from "../../src/domains/skills/frontmatter.js";
import { elapsed, randomTexts } from "../helpers/random-texts.js";

const header = (lines: string) => readFrontMatter(`---\n${lines}\n---\nbody\n`);

describe("front matter", () => {
  it("reads a tag it does not know (`!!js/function`) as plain text, evaluating nothing and printing no warning", () => {
    const warn = vi.spyOn(process, "emitWarning");
    try {
      const front = header('description: !!js/function "function () { return 1 }"\nmodel: !shell whoami');
      expect(front.data.description).toBe("function () { return 1 }");
      expect(front.data.model).toBe("whoami");
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });
  it("reads simple headers exactly as the YAML parser does", () => {
    const samples = [
      "name: pdf\ndescription: Extract text and tables from PDF files, fill forms.",
      "description: Use for C# #hashtag",
      "description: a value with a colon:inside and a 'quote'",
      "name: x\nversion: 1.10\nenabled: yes\ncount: 12",
      "description: -leading dash",
      "key: ~",
      "key: 0x1F",
      'description: "quoted"',
    ];
    for (const sample of samples) {
      const ours = header(sample);
      expect({ ...ours.data }, sample).toEqual(parse(sample, { schema: "core" }));
    }
  });

  it("recovers unquoted colons and bracketed hints, and never runs a ---js header", () => {
    expect(header("description: Use when: the user asks about PDFs").data.description).toBe(
      "Use when: the user asks about PDFs",
    );
    expect(header("description: ends with a colon:").data.description).toBe("ends with a colon:");
    expect(header("argument-hint: [pr-number] [priority]").data["argument-hint"]).toBe(
      "[pr-number] [priority]",
    );
    const js = readFrontMatter("---js\n{ description: require('fs') }\n---\nbody\n");
    expect(js.present).toBe(false);
    expect(js.warnings.join()).toContain("another language");
  });

  it("warns on CRLF, a BOM, an unclosed or empty header, and drops __proto__", () => {
    expect(readFrontMatter("\uFEFF---\r\ndescription: x\r\n---\r\nbody\r\n").warnings).toHaveLength(2);
    expect(readFrontMatter("---\ndescription: x\nbody").warnings.join()).toContain("never closed");
    expect(readFrontMatter("---\n---\nbody").warnings.join()).toContain("empty");
    const proto = header("__proto__: {polluted: true}\ndescription: y");
    expect(Object.getPrototypeOf(proto.data)).toBeNull();
    expect("__proto__" in proto.data).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("the hand-read header fast path", () => {
  // Fragments that YAML reads specially somewhere (indicators, comments, scalars of other types).
  const KEYS = [
    "name",
    "description",
    "license",
    "when_to_use",
    "model",
    "x-y",
    "A1",
    "constructor",
    "prototype",
  ];
  const TOKENS = [
    "word",
    "Use when",
    " ",
    "  ",
    ":",
    ": ",
    "#",
    " #",
    "'",
    '"',
    "-",
    "- ",
    "[",
    "]",
    "{",
    "}",
    ",",
    "&a",
    "*a",
    "!",
    "!!str",
    "|",
    ">",
    "%",
    "@",
    "`",
    "~",
    "?",
    "? ",
    "\t",
    "true",
    "False",
    "null",
    "1.5",
    "0x1F",
    "0o17",
    "12",
    "-3",
    ".inf",
    ".NaN",
    "1e3",
    "é",
    "😀",
    "\\",
    "/",
    "...",
    "---",
    "yes",
  ];

  it("accepts only headers the YAML parser reads as the very same strings", () => {
    const random = rng(12);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
    let accepted = 0;
    let declined = 0;
    for (let i = 0; i < 3_000; i++) {
      const lines: string[] = [];
      const count = 1 + Math.floor(random() * 4);
      for (let l = 0; l < count; l++) {
        if (random() < 0.1) {
          lines.push("");
          continue;
        }
        const value = Array.from({ length: 1 + Math.floor(random() * 5) }, () => pick(TOKENS)).join("");
        const space = random() < 0.9 ? " " : random() < 0.5 ? "\t" : "  ";
        lines.push(`${pick(KEYS)}:${space}${value}${random() < 0.1 ? " " : ""}`);
      }
      const text = lines.join("\n");
      const fast = simpleHeader(text);
      if (!fast) {
        declined++;
        continue;
      }
      accepted++;
      expect({ ...fast }, JSON.stringify(text)).toEqual(parse(text, { schema: "core", maxAliasCount: 100 }));
    }
    // The corpus exercises both sides of the fast path.
    expect(accepted).toBeGreaterThan(200);
    expect(declined).toBeGreaterThan(300);
  });

  it("keeps an argument hint as its display text, where YAML would read a list", () => {
    expect(simpleHeader("argument-hint: [file] [mode]\ndescription: x")).toEqual({
      "argument-hint": "[file] [mode]",
      description: "x",
    });
  });
});

describe("a description already clean", () => {
  it("is returned as the full cleaning would return it, over a generated corpus", () => {
    const random = rng(7);
    const CHARS = [
      "a",
      "Z",
      "0",
      " ",
      "  ",
      "\t",
      "\n",
      "<",
      ">",
      "‹",
      "\u200B",
      "\uFEFF",
      "\u0007",
      "\u007F",
      "é",
      "😀",
      "-",
      ".",
      "~",
      "!",
      "\u202E",
    ];
    let clean = 0;
    for (let i = 0; i < 5_000; i++) {
      const length = Math.floor(random() * 12);
      const text = Array.from({ length }, () => CHARS[Math.floor(random() * CHARS.length)]).join("");
      const full = cleanFully(text);
      if (full === text) clean++;
      expect(cleanDescription(text), JSON.stringify(text)).toBe(full);
    }
    expect(clean).toBeGreaterThan(100);
  });
});

describe("key: value lines, read by hand", () => {
  const SIMPLE_KEY_LINE = /^([A-Za-z][A-Za-z0-9_-]*):[ \t]+(.*?)[ \t]*$/;
  const QUOTABLE_LINE = /^([A-Za-z0-9_-]+):[ \t]+(.+?)\s*$/;

  it("read as the patterns did, on 20,000 random lines", () => {
    const alphabet = ["k", "9", "-", ":", " ", "\t", "\r", "\u00a0", "\u2028", "a", "#", "{"];
    for (const line of randomTexts(20_000, alphabet, 14, 17)) {
      const simple = SIMPLE_KEY_LINE.exec(line);
      expect(simpleKeyLine(line), JSON.stringify(line)).toEqual(simple ? [simple[1], simple[2]] : undefined);
      // A value of blanks alone was matched too, but never needed quotes: nothing was done with it.
      const quotable = QUOTABLE_LINE.exec(line);
      const meant =
        quotable && (quotable[2] as string).trim() !== "" ? [quotable[1], quotable[2]] : undefined;
      expect(quotableLine(line), JSON.stringify(line)).toEqual(meant);
    }
  });

  it("reads a 64 KB header of blanks at once", () => {
    // Before: 4.5 s a read for a line of 64,000 spaces between a value and its last character.
    const took = elapsed(() => {
      for (const line of [`k: a${" ".repeat(64_000)}b`, `k: a${" ".repeat(64_000)}\u0000`]) {
        simpleKeyLine(line);
        quotableLine(line);
      }
      readFrontMatter(`---\ndescription: a${" ".repeat(60_000)}b: c\n---\nbody\n`);
    });
    expect(took).toBeLessThan(2_000);
  });

  it("ignores a header nested deeper than any real one at once, where YAML took seconds", () => {
    // Before: 0.5 to 1.5 s a read for each, every one of them a planted command or skill file.
    const headers = [
      `x: ${"[".repeat(30_000)}${"]".repeat(30_000)}`,
      `x: ${"{a: ".repeat(8_000)}1${"}".repeat(8_000)}`,
      `x:\n  ${"- ".repeat(20_000)}y`,
      `${"? ".repeat(20_000)}y`,
    ];
    const took = elapsed(() => {
      for (const header of headers) {
        const read = readFrontMatter(`---\n${header}\ndescription: d\n---\nbody\n`);
        expect(read.warnings.join(" ")).toContain("nests more than 64 levels deep");
        expect(read.present).toBe(false);
      }
    });
    expect(took).toBeLessThan(500);
    // Real nesting, and brackets that close, are read as before.
    const real = readFrontMatter(
      `---\ndescription: "[[a]] {b}"\nallowed-tools: [Read, Grep]\nmetadata:\n  tags:\n    - - a\n      - b\n---\nbody\n`,
    );
    expect(real.warnings).toEqual([]);
    expect(real.data.description).toBe("[[a]] {b}");
  });
});
