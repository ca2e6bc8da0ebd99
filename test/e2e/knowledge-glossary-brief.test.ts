import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { addAgent, arrange, cairn, initWorkspace, scratchDir, uniqueName } from "../helpers/workspace.js";

/** Which glossary terms a brief quotes, and how fast it finds them. */

let ws: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = initWorkspace();
});
afterEach(() => ws.cleanup());

const made = (args: string[], env?: Record<string, string>) => {
  const run = arrange(ws.dir, [...args, "--json"], { env });
  if (run.code !== 0) throw new Error(`cairn ${args.join(" ")} exited ${run.code}: ${run.stderr}`);
  return run.json;
};

/** The terms the brief of `task` quotes, as its glossary section shows them. */
function briefTerms(dir: string, task: string): string[] {
  const run = cairn(dir, ["context", task, "--json"]);
  expect(run.code, run.stderr).toBe(0);
  const brief = (run.json as { brief: string }).brief;
  return [...brief.matchAll(/^```quote term by [^\n]*\n([^\n]*?): /gm)].map((match) => match[1] as string);
}

describe("a brief quotes the glossary terms its task uses, as whole words", () => {
  it("reads a combining mark as part of its word: no term is found inside a longer Devanagari word", () => {
    made(["glossary", "set", "कम", "less"]);
    made(["glossary", "set", "परीक्षण", "a test run"]);
    // कमी (shortage) is not कम (less): its vowel sign ends the word, not a break in it.
    made(["task", "add", "कमी की जाँच करें"]);
    made(["task", "add", "परीक्षण चलाएँ"]);
    expect(briefTerms(ws.dir, "T-1")).toEqual([]);
    expect(briefTerms(ws.dir, "T-2")).toEqual(["परीक्षण"]);
  });

  it("finds a term whether its accents are typed composed or decomposed, on either side", () => {
    made(["glossary", "set", "café", "the office kitchen"]);
    made(["glossary", "set", "nai\u0308ve", "without a cache"]);
    made(["task", "add", "Restock the cafe\u0301 today"]);
    made(["task", "add", "Replace the naïve lookup"]);
    made(["task", "add", "Restock the cafe today"]);
    expect(briefTerms(ws.dir, "T-1")).toEqual(["café"]);
    expect(briefTerms(ws.dir, "T-2")).toEqual(["naïve"]);
    expect(briefTerms(ws.dir, "T-3")).toEqual([]);
  });

  it("finds a term of a script written without spaces inside its sentence", () => {
    made(["glossary", "set", "データベース", "the workspace store"]);
    made(["task", "add", "データベースを移行する"]);
    expect(briefTerms(ws.dir, "T-1")).toEqual(["データベース"]);
  });

  it("takes a term's punctuation literally and its spaces as any white space", () => {
    made(["glossary", "set", "C++", "the language"]);
    made(["glossary", "set", "a.b", "a dotted path"]);
    made(["glossary", "set", "write  ahead log", "the journal"]);
    made(["task", "add", "Port the C++ build of axb", "--context", "keep the write\nahead log"]);
    expect(briefTerms(ws.dir, "T-1")).toEqual(["C++", "write ahead log"]);
  });
});

describe("a term spelled with other white space is the same term", () => {
  it("refuses another agent's definition of the owner's term written with two spaces or a tab", () => {
    const bob = addAgent(ws.dir, "bob", "dev");
    made(["glossary", "set", "write ahead log", "the journal, fsynced"]);
    for (const spelled of ["write  ahead log", "write\tahead log", "write\u00a0ahead log"]) {
      const run = cairn(ws.dir, ["glossary", "set", spelled, "skip the fsync", "--json"], {
        env: { CAIRN_AGENT: bob.token },
      });
      expect(run.code, run.stderr).toBe(3);
      expect(run.json).toMatchObject({ refused: { policy: "ownership" } });
    }
    const list = cairn(ws.dir, ["glossary", "list", "--json"]).json as { terms: { term: string }[] };
    expect(list.terms.map((entry) => entry.term)).toEqual(["write ahead log"]);
  });
});

describe("a long glossary keeps briefs fast", () => {
  it("builds a brief among thousands of terms of several words past ASCII in a few seconds", () => {
    made(["task", "add", "Fix the Überweisung 17 Typ check"]);
    const scratch = scratchDir();
    try {
      // Restored from an edited export: far faster than defining them one by one.
      const file = join(scratch.dir, "terms.jsonl");
      expect(cairn(ws.dir, ["export", "--out", file]).code).toBe(0);
      const lines = readFileSync(file, "utf8").trimEnd().split("\n");
      const header = JSON.parse(lines[0] as string);
      const at = "2026-01-01T00:00:00.000Z";
      const added = Array.from({ length: 6000 }, (_, n) =>
        JSON.stringify({
          table: "glossary",
          row: {
            seq: n + 1,
            term: `Überweisung ${n} Typ`,
            meaning: "a transfer",
            author: "owner",
            updated_at: at,
          },
        }),
      );
      header.rows += added.length;
      writeFileSync(file, `${[JSON.stringify(header), ...lines.slice(1), ...added].join("\n")}\n`);
      const dir = join(scratch.dir, uniqueName("terms"));
      mkdirSync(dir);
      const imported = cairn(dir, ["import", file]);
      expect(imported.code, imported.stderr).toBe(0);
      const started = Date.now();
      // A pattern compiled for each such term took a millisecond each: ten seconds a brief.
      expect(briefTerms(dir, "T-1")).toEqual(["Überweisung 17 Typ"]);
      expect(Date.now() - started).toBeLessThan(4_000);
    } finally {
      scratch.cleanup();
    }
  });
});
