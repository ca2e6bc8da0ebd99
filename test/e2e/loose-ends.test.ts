import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, connectMcp, INITIALIZE, rawServer } from "../helpers/mcp.js";
import {
  addAgent,
  arrange,
  cairn,
  initWorkspace,
  runSync,
  STORE_UNDER_TEST,
  scratchDir,
  uniqueName,
} from "../helpers/workspace.js";

/** The small promises of issue 9, each through the face a user or agent would meet it in. */
let ws: { dir: string; cleanup: () => void };
beforeAll(() => {
  ws = initWorkspace();
});
afterAll(() => ws.cleanup());

describe("the CLI's exit codes and messages", () => {
  it("task check fails when a criterion does, showing its text and output tail", () => {
    arrange(ws.dir, ["task", "add", "failing"]);
    const args = ["task", "criterion", "T-1", "--text", "tests pass"];
    for (const word of ["sh", "-c", "echo 'assertion failed: 1 != 2'; exit 1"]) args.push("--verify", word);
    cairn(ws.dir, args);
    cairn(ws.dir, ["task", "claim", "T-1"]);
    const check = cairn(ws.dir, ["task", "check", "T-1", "--all"]);
    expect(check.code).toBe(1);
    expect(check.stdout).toContain("tests pass");
    expect(check.stdout).toContain("| assertion failed: 1 != 2");
    // The failure says its exit code once, and names which criteria are still unchecked.
    expect(check.stdout).toContain('— failed: exited 1: "assertion failed: 1 != 2"\n');
    expect(check.stdout).toContain("T-1: still unchecked: criterion 1");
  });

  it("no command and an unknown command are usage errors; a wrong CAIRN_DIR is named", () => {
    const bare = cairn(ws.dir, []);
    expect(bare.code).toBe(2);
    // The help a bare `cairn` shows names the commands of their own, as `cairn --help` does.
    const full = cairn(ws.dir, ["--help"]).stdout;
    expect(full).toContain("cairn mcp [--profile");
    expect(bare.stderr).toBe(full);
    expect(cairn(ws.dir, ["bogus"]).code).toBe(2);
    const wrong = cairn(ws.dir, ["status"], { env: { CAIRN_DIR: join(ws.dir, "nowhere") } });
    expect(wrong.code).toBe(4);
    expect(wrong.stderr).toMatch(/CAIRN_DIR is .*nowhere/);
  });

  it("hints name the command to type on the CLI and the tool to call over MCP", async () => {
    arrange(ws.dir, ["task", "add", "unclaimed"]);
    const cli = cairn(ws.dir, ["task", "finish", "T-2", "--json"]);
    expect((cli.json as { refused: { next: string } }).refused.next).toContain("`cairn task claim T-2`");
    const mcp = await connectMcp(ws.dir);
    try {
      const result = await callTool(mcp, "finish_task", { task: "T-2" });
      expect((result.structuredContent as { refused: { next: string } }).refused.next).toContain(
        "claim_task T-2",
      );
      expect(mcp.stderr()).toContain("serving as the workspace owner");
    } finally {
      await mcp.close();
    }
  });

  it("a finish refused only for a missing note asks for the note, not for ticks", () => {
    const own = initWorkspace();
    try {
      const config = join(own.dir, ".cairn", "cairn.toml");
      writeFileSync(config, `${readFileSync(config, "utf8")}\n[done]\nnote_kinds = ["decision"]\n`);
      arrange(own.dir, [
        "task",
        "add",
        "noted",
        "--criteria",
        JSON.stringify({ text: "runs", verify: ["true"] }),
      ]);
      arrange(own.dir, ["task", "claim", "T-1"]);
      expect(cairn(own.dir, ["task", "check", "T-1", "--all"]).code).toBe(0);
      const finish = cairn(own.dir, ["task", "finish", "T-1", "--json"]);
      expect(finish.code).toBe(3);
      const { next } = (finish.json as { refused: { next: string } }).refused;
      expect(next).toBe("record a decision note scoped to T-1; fix the rest, then finish again");
    } finally {
      own.cleanup();
    }
  });

  it("cairn mcp names a bogus profile", () => {
    const run = cairn(ws.dir, ["mcp", "--profile", "bogus"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no profile "bogus"');
  });
});

describe("the workspace", () => {
  it("init warns inside another workspace and below a git root, naming the root", () => {
    const inner = join(ws.dir, "packages", uniqueName("inner"));
    mkdirSync(inner, { recursive: true });
    const nested = cairn(inner, ["init"]);
    expect(nested.code).toBe(0);
    expect(nested.stdout).toContain(`inside the workspace at ${ws.dir}`);
    const repo = scratchDir();
    try {
      runSync("git", ["init", "-q"], repo.dir);
      const sub = join(repo.dir, "sub");
      mkdirSync(sub);
      const below = cairn(sub, ["init", "--json"]).json as { warnings: string[] };
      expect(below.warnings.join("\n")).toContain(`below the git root ${repo.dir}`);
    } finally {
      repo.cleanup();
    }
  });

  it("export carries cairn.toml into the import; a failed import leaves nothing behind", () => {
    const source = initWorkspace();
    const target = scratchDir();
    try {
      const toml = '[roles.builder]\nsummary = "builds"\n';
      writeFileSync(join(source.dir, ".cairn", "cairn.toml"), toml);
      const file = join(target.dir, "backup.jsonl");
      expect(cairn(source.dir, ["export", "--out", file]).code).toBe(0);
      const restored = join(target.dir, uniqueName("restored"));
      mkdirSync(restored);
      expect(cairn(restored, ["import", file]).code).toBe(0);
      // On PostgreSQL the restored checkout's file goes on to name the schema it was restored into.
      const restoredToml = readFileSync(join(restored, ".cairn", "cairn.toml"), "utf8");
      if (STORE_UNDER_TEST === "sqlite") expect(restoredToml).toBe(toml);
      else expect(restoredToml.slice(0, toml.length + 9)).toBe(`${toml}\n[store]\n`);

      const broken = join(target.dir, "broken.jsonl");
      writeFileSync(broken, `${readFileSync(file, "utf8")}not json\n`);
      const failed = join(target.dir, uniqueName("failed"));
      mkdirSync(failed);
      expect(cairn(failed, ["import", broken]).code).toBe(2);
      expect(existsSync(join(failed, ".cairn"))).toBe(false);
    } finally {
      source.cleanup();
      target.cleanup();
    }
  });

  it("an import into a shared store it cannot reach writes nothing and never shows the password; unset, it restores here", () => {
    const source = initWorkspace();
    const target = scratchDir();
    try {
      const file = join(target.dir, "backup.jsonl");
      expect(cairn(source.dir, ["remember", "kept through the backup"]).code).toBe(0);
      expect(cairn(source.dir, ["export", "--out", file]).code).toBe(0);
      // CAIRN_STORE_URL sends the import where every later command here would look: that server.
      const env = { CAIRN_STORE_URL: "postgres://team:s3cret-pw@127.0.0.1:9/board" };
      const failed = cairn(target.dir, ["import", file, "--json"], { env });
      expect(failed.code).toBe(1);
      expect(failed.json).toMatchObject({
        error: { kind: "operational", message: expect.stringContaining("cannot reach PostgreSQL") },
      });
      expect(failed.stdout + failed.stderr).not.toContain("s3cret-pw");
      expect(existsSync(join(target.dir, ".cairn"))).toBe(false);
      // Unset, the same import makes a SQLite workspace, the one later commands open.
      expect(cairn(target.dir, ["import", file], { env: { CAIRN_STORE_URL: undefined } }).code).toBe(0);
      const recalled = cairn(target.dir, ["recall", "backup", "--json"], {
        env: { CAIRN_STORE_URL: undefined },
      }).json as { facts: { text: string }[] };
      expect(recalled.facts.map((fact) => fact.text)).toEqual(["kept through the backup"]);
    } finally {
      source.cleanup();
      target.cleanup();
    }
  });

  it("task show lists the notes scoped to the task; risks no longer share R-n with goal runs", () => {
    cairn(ws.dir, [
      "note",
      "add",
      "decision",
      "--scope",
      "T-1",
      "--chose",
      "sqlite",
      "--rejected",
      "pg",
      "--because",
      "local",
    ]);
    const shown = cairn(ws.dir, ["task", "show", "T-1", "--json"]).json as {
      notes: { kind: string; text: string }[];
    };
    expect(shown.notes.map((n) => n.text)).toContain("chose sqlite; rejected pg; because local");
    const risk = cairn(ws.dir, [
      "risk",
      "add",
      "disk fills",
      "--impact",
      "high",
      "--likelihood",
      "low",
      "--indicators",
      "df",
      "--action",
      "prune",
      "--json",
    ]).json as { risk: { id: string } };
    expect(risk.risk.id).toMatch(/^RK-\d+$/);
  });
});

describe("MCP resources", () => {
  it("pages resources/list with nextCursor; bad cursors and malformed URIs are invalid params", async () => {
    const paged = initWorkspace();
    const mcp = await connectMcp(paged.dir);
    try {
      for (let i = 0; i < 101; i++) await callTool(mcp, "add_task", { title: `task ${i}` });
      // The SDK client follows cursors itself and returns every page: all 101 tasks arrive.
      const all = (await mcp.client.listResources()).resources.map((r) => r.uri);
      expect(all).toContain("cairn://task/T-101/brief");
      expect(new Set(all).size).toBe(all.length);
    } finally {
      await mcp.close();
    }
    const raw = rawServer(paged.dir);
    try {
      await raw.request(INITIALIZE);
      raw.notify(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
      const first = (await raw.request({ jsonrpc: "2.0", id: 10, method: "resources/list", params: {} }))
        .result as { resources: { uri: string }[]; nextCursor?: string };
      expect(first.nextCursor).toBeDefined();
      expect(first.resources.map((r) => r.uri)).not.toContain("cairn://task/T-101");
      // Tasks of the first page leave the list while the client pages: the next page still goes
      // on from the last task it was shown, and T-101 is not skipped.
      for (const task of ["T-1", "T-2"]) expect(cairn(paged.dir, ["task", "drop", task]).code).toBe(0);
      const second = (
        await raw.request({
          jsonrpc: "2.0",
          id: 11,
          method: "resources/list",
          params: { cursor: first.nextCursor },
        })
      ).result as { resources: { uri: string }[]; nextCursor?: string };
      expect(second.resources.map((r) => r.uri)).toEqual(["cairn://task/T-101", "cairn://task/T-101/brief"]);
      expect(second.nextCursor).toBeUndefined();
      const badCursor = await raw.request({
        jsonrpc: "2.0",
        id: 1,
        method: "resources/list",
        params: { cursor: "!!" },
      });
      expect(badCursor.error).toMatchObject({ code: -32602 });
      // A forged cursor past any page this server could give out is refused as a cursor, not
      // passed on to a command whose complaint would name its own flags.
      const forged = await raw.request({
        jsonrpc: "2.0",
        id: 4,
        method: "resources/list",
        params: { cursor: Buffer.from(JSON.stringify({ offset: 1e300 })).toString("base64url") },
      });
      expect(forged.error).toMatchObject({ code: -32602, message: expect.stringContaining("cursor") });
      expect(JSON.stringify(forged.error)).not.toContain("task list");
      const forgedAfter = await raw.request({
        jsonrpc: "2.0",
        id: 5,
        method: "resources/list",
        params: { cursor: Buffer.from(JSON.stringify({ offset: 0, after: "--help" })).toString("base64url") },
      });
      expect(forgedAfter.error).toMatchObject({ code: -32602, message: expect.stringContaining("cursor") });
      const badUri = await raw.request({
        jsonrpc: "2.0",
        id: 2,
        method: "resources/read",
        params: { uri: "cairn://task/%E0%A4%A" },
      });
      expect(badUri.error).toMatchObject({ code: -32602 });
      const notTask = await raw.request({
        jsonrpc: "2.0",
        id: 3,
        method: "resources/read",
        params: { uri: "cairn://task/nope" },
      });
      expect(notTask.error).toMatchObject({ code: -32602 });
    } finally {
      await raw.close();
      paged.cleanup();
    }
  });

  it("an agent's token grants nothing it was not given, even as a hint", () => {
    const reader = addAgent(ws.dir, "hintreader", "reviewer", ["--grant", "ro"]);
    const refused = cairn(ws.dir, ["task", "add", "x", "--json"], { env: { CAIRN_AGENT: reader.token } });
    expect(refused.code).toBe(3);
    expect(refused.stdout + refused.stderr).not.toContain(reader.token);
  });
});
