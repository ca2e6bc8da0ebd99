import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addAgent, arrange, cairn, initWorkspace } from "../helpers/workspace.js";

/**
 * `shortcut list` a page at a time: any writer adds shortcuts, each with a command of its own
 * choosing, so the whole list was as large as writers made it (160 MB for 160 of them).
 */
let ws: { dir: string; cleanup: () => void };
beforeAll(() => {
  ws = initWorkspace();
  appendFileSync(
    join(ws.dir, ".cairn", "cairn.toml"),
    '\n[shortcuts.test]\nargv = ["true"]\neffect = "read"\n',
  );
  const writer = addAgent(ws.dir, "adder", "builder");
  for (const name of ["delta", "alpha", "charlie", "bravo"]) {
    const added = arrange(
      ws.dir,
      ["shortcut", "add", name, "--argv", "echo", "--argv", name, "--effect", "write"],
      {
        env: { CAIRN_AGENT: writer.token },
      },
    );
    expect(added.code, added.stderr).toBe(0);
  }
});
afterAll(() => ws.cleanup());

type Page = { shortcuts: { name: string; source: string }[]; total: number; next_offset: number | null };

describe("shortcut list", () => {
  it("pages cairn.toml's shortcuts first, then the store's by name, with the total and where the next page starts", () => {
    const first = cairn(ws.dir, ["shortcut", "list", "--limit", "2", "--json"]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json).toMatchObject({ total: 5, next_offset: 2 });
    expect((first.json as Page).shortcuts.map((s) => [s.name, s.source])).toEqual([
      ["test", "config"],
      ["alpha", "store"],
    ]);
    const second = cairn(ws.dir, ["shortcut", "list", "--limit", "2", "--offset", "2", "--json"])
      .json as Page;
    expect(second.shortcuts.map((s) => s.name)).toEqual(["bravo", "charlie"]);
    const last = cairn(ws.dir, ["shortcut", "list", "--limit", "2", "--offset", "4", "--json"]).json as Page;
    expect(last).toMatchObject({ total: 5, next_offset: null });
    expect(last.shortcuts.map((s) => s.name)).toEqual(["delta"]);
    expect(cairn(ws.dir, ["shortcut", "list", "--offset", "9", "--json"]).json).toMatchObject({
      shortcuts: [],
      total: 5,
      next_offset: null,
    });
    // The default page holds them all here; the text says where the rest are when it does not.
    expect((cairn(ws.dir, ["shortcut", "list", "--json"]).json as Page).shortcuts).toHaveLength(5);
    expect(cairn(ws.dir, ["shortcut", "list", "--limit", "2"]).stdout).toContain(
      "(2 of 5; next: --offset 2)",
    );
    expect(cairn(ws.dir, ["shortcut", "list", "--limit", "500"]).code).toBe(2);
  });
});
