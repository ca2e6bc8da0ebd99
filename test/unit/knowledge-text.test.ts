import { describe, expect, it } from "vitest";
import { decisionKey, parseMetric } from "../../src/domains/knowledge/notes.js";
import { riskRank } from "../../src/domains/knowledge/risks.js";
import {
  anyTextNormalForm,
  flattenLinks,
  normaliseFact,
  normaliseTopics,
  parseScope,
  queryTerms,
  shows,
} from "../../src/domains/knowledge/text.js";
import { ftsExpression } from "../../src/store/sqlite/facts.js";
import { elapsed, randomTexts } from "../helpers/random-texts.js";

describe("fact normalisation", () => {
  it("treats case, punctuation, whitespace, accents and link spelling as the same fact", () => {
    const base = normaliseFact("The docs live at https://example.com/docs/ — see Café notes.");
    expect(normaliseFact("the DOCS live at   example.com/docs  see cafe notes")).toBe(base);
    expect(
      normaliseFact("The docs live at [example.com/docs](http://www.example.com/docs/); see café notes!"),
    ).not.toBe("");
    expect(normaliseFact("The docs live at http://www.example.com/docs/ see Cafe notes")).toBe(base);
    expect(normaliseFact("Port 5432")).not.toBe(normaliseFact("Port 5433"));
  });

  it("takes a text of blank-drawn letters for an empty one", () => {
    // A decision's required `rejected` filled with these drew as nothing in every brief.
    for (const blank of ["\u3164", "\u115F\u1160", "\uFFA0", "\u2800", " \u200B\u00A0"])
      expect(shows(blank), JSON.stringify(blank)).toBe(false);
    expect(shows("\u3164kept")).toBe(true);
  });

  it("keeps the symbols that change what a fact says, and only those", () => {
    // Each pair was one fact: the second was taken for a restatement of the first and never stored.
    const different = [
      ["Retries stay x < 5", "Retries stay x > 5"],
      ["The build needs C++ 17", "The build needs C 17"],
      ["The client is written in C#", "The client is written in C"],
      ["The offset is -1", "The offset is 1"],
      ["Coverage must stay at 50%", "Coverage must stay at 50"],
      ["Compare with a != b", "Compare with a b"],
      ["Prefer x ≤ 3", "Prefer x ≥ 3"],
      // Compatibility folding made a superscript a plain digit: 10³ read as 103.
      ["The rate limit is 10³ requests", "The rate limit is 103 requests"],
      ["Retry at most 2⁸ times", "Retry at most 28 times"],
    ];
    for (const [one, other] of different)
      expect(normaliseFact(one as string), `${one} / ${other}`).not.toBe(normaliseFact(other as string));
    // The same fact, however its operators are spaced or bracketed.
    expect(normaliseFact("Retries stay (x<5).")).toBe(normaliseFact("retries stay x < 5"));
    expect(normaliseFact("Use C++17")).toBe(normaliseFact("use c ++ 17"));
    expect(normaliseFact("The rate limit is 10³ requests")).toBe(
      normaliseFact("the rate limit is 10^3 requests"),
    );
    // Text without such symbols keeps the normal form facts were stored under before.
    const old = (text: string) =>
      text
        .toLowerCase()
        .replace(/[^\p{L}\p{N}]+/gu, " ")
        .trim();
    for (const text of [
      "T-12 is a well-known (see: the docs) task.",
      "Don't, won't; \"quoted\" — dashes… #1",
    ])
      expect(normaliseFact(text)).toBe(old(text));
  });

  it("reads plain ASCII by its own fast path to the same normal form as any text", () => {
    // Every ASCII character, alone and around words, digits, `#` and `-`, then random strings
    // drawn from the characters the rules single out.
    const texts: string[] = [];
    for (let code = 0; code < 128; code++) {
      const c = String.fromCharCode(code);
      texts.push(c, `a${c}b`, `${c}1`, `a${c}`, `x ${c}-1`, `1${c}#`, `${c}${c}=`);
    }
    const alphabet = "aZ9 -+<>=!#%&^*/_.,;:()[]{}\t\n\r\v\f\x1c\x1f\x7f\x00~|'\"`@$?\\";
    const pieces = [...alphabet, "www.", "WWW.", "http://", "ftp://", "](", "[x](", "https://x.org/"];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let i = 0; i < 20_000; i++) {
      let text = "";
      for (let j = random(24); j >= 0; j--) text += pieces[random(pieces.length)];
      texts.push(text);
    }
    const differing = texts.filter((text) => normaliseFact(text) !== anyTextNormalForm(text));
    expect(differing.slice(0, 5)).toEqual([]);
  });

  it("reads a fact as it shows: invisible characters inside it do not make it another fact", () => {
    // A zero-width space, soft hyphen, word joiner, BOM or bidi mark shows as nothing: a
    // restatement carrying one looked the same and was stored as a second fact beside the first.
    const base = normaliseFact("The DB uses WAL mode");
    for (const hidden of ["\u200B", "\u00AD", "\u2060", "\uFEFF", "\u200D", "\u202E", "\u2066"])
      expect(normaliseFact(`The D${hidden}B uses W${hidden}AL mode`), JSON.stringify(hidden)).toBe(base);
    expect(normaliseFact("The DB uses WAL mode\u200B")).toBe(base);
    expect(normaliseTopics(["d\u200Bb", "D\u00ADB", "db"])).toEqual(["db"]);
  });
});

describe("links in a fact", () => {
  /** What flattenLinks was: patterns that rescan from every `[`, `](` and `/` (100 KB: 19 s). */
  const stripSchemeBefore = (url: string) =>
    url
      .replace(/^(?:https?|ftp):\/\/(?:www\.)?/i, "")
      .replace(/^www\./i, "")
      .replace(/\/+$/, "");
  const flattenBefore = (text: string) =>
    text
      .replace(/\[([^\]]*)\]\(([^)\s]*)\)/g, (_, words: string, url: string) =>
        stripSchemeBefore(words.trim()).toLowerCase() === stripSchemeBefore(url).toLowerCase()
          ? url
          : `${words} ${url}`,
      )
      .replace(/\b(?:https?|ftp):\/\/(?:www\.)?/gi, "")
      .replace(/\bwww\./gi, "")
      .replace(/\/(?=\s|$|[.,;:!?)])/g, "");

  it("flattens as the patterns did, on 20,000 random texts", () => {
    const alphabet = ["[", "]", "(", ")", "](", "[a](", " ", "\n", "a", "/", "http://", "www.", ".", "B"];
    for (const text of randomTexts(20_000, alphabet, 16, 5)) {
      expect(flattenLinks(text), JSON.stringify(text)).toBe(flattenBefore(text));
    }
  });

  it("reads a 100 KB text of brackets and slashes in one pass", () => {
    // Before: 100,000 `[` then `](x` took 19 s in `cairn note add`, and again in every brief.
    const took = elapsed(() => {
      for (const text of [
        `${"[".repeat(100_000)}](x`,
        "[](".repeat(33_333),
        `[a](${"/".repeat(100_000)}x)`,
        `[a](${"/".repeat(100_000)})`,
      ])
        flattenLinks(text);
      expect(flattenLinks(`[a](${"/".repeat(10)}x)`)).toBe(`a ${"/".repeat(10)}x`);
    });
    expect(took).toBeLessThan(2_000);
  });
});

describe("query terms and the FTS expression", () => {
  it("quotes every term itself, so FTS syntax in a query is only ever words", () => {
    const terms = queryTerms('"unbalanced * NEAR( AND -x OR col:val ^start');
    expect(terms).toEqual(["unbalanced", "near", "col", "val", "start"]);
    expect(ftsExpression(['a"b', "word"])).toBe('"a""b" OR "word"');
  });

  it("drops common words unless nothing else is left", () => {
    expect(queryTerms("what is the port of the database")).toEqual(["port", "database"]);
    expect(queryTerms("the")).toEqual(["the"]);
  });

  it("drops lone letters and digits unless nothing else is left; longer numbers and other scripts stay", () => {
    expect(queryTerms("epic 1407 task 2: document the parser (T-12)")).toEqual([
      "epic",
      "1407",
      "task",
      "document",
      "parser",
      "12",
    ]);
    expect(queryTerms("cluster 2")).toEqual(["cluster"]);
    expect(queryTerms("2 x")).toEqual(["2", "x"]);
    expect(queryTerms("é 库 v2")).toEqual(["é", "库", "v2"]);
  });
});

describe("decision keys", () => {
  it("are one for the same decision however spelled, and never taken from another decision's texts", () => {
    const direct = (d: { chose: string; rejected: string; because: string }) =>
      [d.chose, d.rejected, d.because].map(normaliseFact).join("\n");
    const decisions = [
      { chose: "WAL", rejected: "rollback journal", because: "readers never block" },
      { chose: "wal.", rejected: "Rollback  journal", because: "Readers never block!" },
      // The same letters end to end, cut elsewhere: another decision.
      { chose: "WALrollback", rejected: " journal", because: "readers never block" },
      { chose: "WA", rejected: "Lrollback journal", because: "readers never block" },
    ];
    // Twice over: the second round answers from what the first kept.
    for (let round = 0; round < 2; round++)
      for (const decision of decisions) expect(decisionKey(decision)).toBe(direct(decision));
    expect(decisionKey(decisions[0] as (typeof decisions)[0])).toBe(
      decisionKey(decisions[1] as (typeof decisions)[0]),
    );
    expect(decisionKey(decisions[2] as (typeof decisions)[0])).not.toBe(
      decisionKey(decisions[3] as (typeof decisions)[0]),
    );
  });
});

describe("decision keys of long fields", () => {
  it("read a field past 4,000 characters as spelled: forty decisions of 256 KiB fields fold at once", () => {
    const long = (i: number) => `${i} ${"é ü. ".repeat(52_000)}`;
    const decisions = Array.from({ length: 40 }, (_, i) => ({
      chose: long(i),
      rejected: long(i + 100),
      because: long(i + 200),
    }));
    const first = decisions[0] as (typeof decisions)[0];
    // Spelled the same, one decision (a retried call); spelled otherwise, another.
    expect(decisionKey({ ...first })).toBe(decisionKey(first));
    expect(decisionKey({ ...first, chose: first.chose.toUpperCase() })).not.toBe(decisionKey(first));
    // A long field is never another field's words, nor a short field's normal form.
    expect(decisionKey({ chose: "a\nb", rejected: "x".repeat(4_001), because: "c" })).not.toBe(
      decisionKey({ chose: "a", rejected: `b\n${"x".repeat(4_001)}`, because: "c" }),
    );
    expect(decisionKey({ chose: "WAL", rejected: "x".repeat(4_000), because: "fast" })).toBe(
      decisionKey({ chose: "wal", rejected: "X".repeat(4_000), because: "Fast." }),
    );
    // Normalising them took 7 s, every brief of their scope (and every decision added there).
    const started = performance.now();
    for (const decision of decisions) decisionKey(decision);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe("metric notes", () => {
  it("reads goal, then question, then metric", () => {
    expect(parseMetric("Goal: fast recall. Question: how slow is it? Metric: p50 ms")).toEqual({
      goal: "fast recall.",
      question: "how slow is it?",
      metric: "p50 ms",
    });
  });
  it("refuses labels out of order, missing or empty", () => {
    for (const text of [
      "question: q goal: g metric: m",
      "goal: g metric: m",
      "goal: question: q metric: m",
      "",
    ]) {
      expect(() => parseMetric(text), text).toThrow(/metric/);
    }
  });
});

describe("scopes and risk rank", () => {
  it("takes workspace, task:ID or a bare id", () => {
    expect(parseScope(undefined)).toBe("workspace");
    expect(parseScope("T-3")).toBe("task:T-3");
    expect(parseScope("task:T-3")).toBe("task:T-3");
    for (const same of ["t-3", "3", " T-3 ", "task:t-3", "TASK:3"]) expect(parseScope(same)).toBe("task:T-3");
    expect(() => parseScope("T-3x")).toThrow(/neither `workspace` nor a task id/);
    expect(() => parseScope("task:")).toThrow();
    expect(() => parseScope("a b")).toThrow();
  });
  it("ranks by impact × likelihood, 1 the worst", () => {
    expect(riskRank({ impact: "high", likelihood: "high" })).toBe(1);
    expect(riskRank({ impact: "high", likelihood: "medium" })).toBe(2);
    expect(riskRank({ impact: "medium", likelihood: "high" })).toBe(2);
    expect(riskRank({ impact: "medium", likelihood: "medium" })).toBe(3);
    expect(riskRank({ impact: "low", likelihood: "low" })).toBe(6);
  });
});
