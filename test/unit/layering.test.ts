import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/workspace.js";

/**
 * Layers, lowest first. A file may import its own layer or lower ones, never higher. Faces reach
 * the core only through the command table: they may not import domains or the store at all.
 */
const LAYERS = ["kernel", "store", "domains", "commands", "faces"] as const;
const FORBIDDEN_BELOW: Record<string, readonly string[]> = { faces: ["store", "domains"] };

const SRC = join(REPO_ROOT, "src");

function layerOf(file: string): string {
  const [top] = relative(SRC, file).split("/");
  return top?.endsWith(".ts") ? "entry" : (top ?? "entry");
}

function rank(layer: string): number {
  return layer === "entry" ? LAYERS.length : LAYERS.indexOf(layer as (typeof LAYERS)[number]);
}

function violations(files: { path: string; source: string }[]): string[] {
  const found: string[] = [];
  for (const { path, source } of files) {
    const from = layerOf(path);
    for (const match of source.matchAll(
      /(?:import|export)[^"']*?from\s*["'](\.[^"']+)["']|import\(\s*["'](\.[^"']+)["']\s*\)/g,
    )) {
      const target = resolve(dirname(path), (match[1] ?? match[2]) as string);
      if (!target.startsWith(SRC)) continue;
      const to = layerOf(target);
      const name = `${relative(SRC, path)} → ${relative(SRC, target)}`;
      if (rank(to) > rank(from)) found.push(`${name}: ${from} may not import ${to}`);
      if (FORBIDDEN_BELOW[from]?.includes(to))
        found.push(`${name}: ${from} must go through commands, not ${to}`);
    }
  }
  return found;
}

function sourceFiles(dir: string): { path: string; source: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [{ path, source: readFileSync(path, "utf8") }] : [];
  });
}

describe("layering: store → domains → commands → faces", () => {
  it("no lower layer imports a higher one, and faces never reach past the command table", () => {
    expect(violations(sourceFiles(SRC))).toEqual([]);
  });

  it("the check catches an upward import and a face reaching into the store", () => {
    const found = violations([
      { path: join(SRC, "store", "x.ts"), source: 'import { dispatch } from "../commands/dispatch.js";' },
      {
        path: join(SRC, "domains", "y", "z.ts"),
        source: 'const m = await import("../../faces/cli/program.js");',
      },
      {
        path: join(SRC, "faces", "cli", "w.ts"),
        source: 'import type { Store } from "../../store/store.js";',
      },
    ]);
    expect(found).toHaveLength(3);
  });
});
