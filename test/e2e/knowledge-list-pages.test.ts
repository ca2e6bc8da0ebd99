import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callTool, connectMcp } from "../helpers/mcp.js";
import { cairn, initWorkspace, scratchDir, uniqueName } from "../helpers/workspace.js";

/**
 * `risk list` and `glossary list` quote every text whole, and any writer fills those texts to
 * their limits: a page must still reach an MCP agent, whatever its items hold.
 */

let ws: { dir: string; cleanup: () => void };
let scratch: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = initWorkspace();
  scratch = scratchDir();
});
afterEach(() => {
  ws.cleanup();
  scratch.cleanup();
});

/** A workspace restored from an edited export: 10 risks and 25 terms, each text at its limit. */
function fullWorkspace(): string {
  const file = join(scratch.dir, "full.jsonl");
  expect(cairn(ws.dir, ["export", "--out", file]).code).toBe(0);
  const lines = readFileSync(file, "utf8").trimEnd().split("\n");
  const header = JSON.parse(lines[0] as string);
  const at = "2026-01-01T00:00:00.000Z";
  const full = "w".repeat(256 * 1024);
  const risks = Array.from({ length: 10 }, (_, n) => ({
    table: "risks",
    row: {
      seq: n + 1,
      id: `RK-${n + 1}`,
      scope: "workspace",
      risk: `risk ${n + 1}`,
      impact: "high",
      likelihood: "high",
      indicators: full,
      action: full,
      author: "owner",
      created_at: at,
    },
  }));
  const terms = Array.from({ length: 25 }, (_, n) => ({
    table: "glossary",
    row: {
      seq: n + 1,
      term: `term${String(n).padStart(2, "0")}`,
      meaning: full,
      author: "owner",
      updated_at: at,
    },
  }));
  const added = [...risks, ...terms].map((line) => JSON.stringify(line));
  header.rows += added.length;
  writeFileSync(file, `${[JSON.stringify(header), ...lines.slice(1), ...added].join("\n")}\n`);
  const dir = join(scratch.dir, uniqueName("full"));
  mkdirSync(dir);
  const imported = cairn(dir, ["import", file]);
  expect(imported.code, imported.stderr).toBe(0);
  return dir;
}

type Page = { total: number; next_offset: number | null } & Record<string, unknown>;

describe("a page of whole risks or terms fits in one MCP answer", () => {
  it("ends a page of risk list and glossary list early, at a next_offset, rather than fail it as too large", async () => {
    const dir = fullWorkspace();
    const mcp = await connectMcp(dir);
    try {
      /** Every item of a list, page after page through `cli`, and how many pages it took. */
      const walk = async (argv: string[], key: string) => {
        const seen: string[] = [];
        let pages = 0;
        for (let offset: number | null = 0; offset !== null; pages++) {
          const result = await callTool(mcp, "cli", { argv: [...argv, "--offset", String(offset)] });
          // 10 risks of 512 KiB, sent as text and as structured content, were 10 MB: refused whole.
          expect(result.isError, JSON.stringify(result.content).slice(0, 300)).toBeFalsy();
          const page = (result.structuredContent as { output: Page }).output;
          const items = page[key] as { id?: string; term?: string }[];
          expect(items.length).toBeGreaterThan(0);
          seen.push(...items.map((item) => item.id ?? item.term ?? ""));
          if (page.next_offset !== null) expect(page.next_offset).toBe(offset + items.length);
          offset = page.next_offset;
        }
        return { seen, pages };
      };
      const risks = await walk(["risk", "list"], "risks");
      expect(risks.seen).toEqual(Array.from({ length: 10 }, (_, n) => `RK-${n + 1}`));
      expect(risks.pages).toBeGreaterThan(1);
      const terms = await walk(["glossary", "list"], "terms");
      expect(terms.seen).toEqual(Array.from({ length: 25 }, (_, n) => `term${String(n).padStart(2, "0")}`));
      expect(terms.pages).toBeGreaterThan(1);
    } finally {
      await mcp.close();
    }
  });
});
