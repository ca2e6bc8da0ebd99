import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { evidenceOf } from "../helpers/evidence.js";
import { connectMcp } from "../helpers/mcp.js";
import { addAgent, arrange, cairn, initWorkspace } from "../helpers/workspace.js";

let ws: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = initWorkspace();
});
afterEach(() => ws.cleanup());

interface CheckOut {
  results: {
    n: number;
    checked: boolean;
    why: string | null;
    exit_code: number | null;
    output_tail: string | null;
  }[];
  unchecked: number[];
}

/** A claimed task whose one criterion is verified by `verify`. */
function taskVerifiedBy(verify: string[], timeoutSeconds?: number): string {
  arrange(ws.dir, ["task", "add", "verified work"]);
  const args = ["task", "criterion", "T-1", "--text", "it proves itself"];
  for (const word of verify) args.push("--verify", word);
  if (timeoutSeconds) args.push("--timeout-seconds", String(timeoutSeconds));
  expect(arrange(ws.dir, args).code).toBe(0);
  expect(arrange(ws.dir, ["task", "claim", "T-1"]).code).toBe(0);
  return "T-1";
}

const check = (id: string) => cairn(ws.dir, ["task", "check", id, "--all", "--json"], { timeoutMs: 60_000 });

describe("verify commands run by cairn", () => {
  it("leaves a failing criterion unticked with why, ticks it once the command passes, and only then finishes", () => {
    const flag = join(ws.dir, "ready.flag");
    const id = taskVerifiedBy([
      "node",
      "-e",
      `require("fs").accessSync(${JSON.stringify(flag)}); console.log("green")`,
    ]);
    const failed = check(id).json as CheckOut;
    expect(failed.results[0]).toMatchObject({ checked: false, exit_code: 1 });
    expect(failed.results[0]?.output_tail).toMatch(/ENOENT/);
    expect(failed.results[0]?.why).toMatch(/exited 1/);
    const refused = cairn(ws.dir, ["task", "finish", id, "--json"]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('criterion 1 unchecked: "it proves itself"');
    writeFileSync(flag, "");
    const passed = check(id).json as CheckOut;
    expect(passed.results[0]).toMatchObject({ checked: true, why: null, exit_code: 0 });
    const evidence = evidenceOf(id, ws.dir);
    expect(evidence).toMatchObject({
      exit_code: 0,
      timed_out: false,
      output_tail: "green\n",
      git_head: null,
    });
    expect(evidence?.output_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(cairn(ws.dir, ["task", "finish", id, "--json"]).json).toMatchObject({
      result: "done",
      unverified: false,
    });
  });

  it("keeps no agent token in its evidence, though the command read one from another process's environment", async () => {
    const { token } = addAgent(ws.dir, "planner", "planner");
    const server = await connectMcp(ws.dir, { env: { CAIRN_AGENT: token } });
    try {
      // Any process of the user can read a running `cairn mcp`'s environment under /proc.
      const id = taskVerifiedBy([
        "node",
        "-e",
        `const fs = require("fs");
         for (const pid of fs.readdirSync("/proc").filter((p) => /^\\d+$/.test(p))) {
           try {
             for (const kv of fs.readFileSync("/proc/" + pid + "/environ", "utf8").split("\\0"))
               if (kv.startsWith("CAIRN_AGENT=")) console.log(kv);
           } catch {}
         }`,
      ]);
      expect((check(id).json as CheckOut).results[0]?.checked).toBe(true);
      const evidence = evidenceOf(id, ws.dir);
      expect(evidence?.output_tail).toContain("CAIRN_AGENT=cairn_[redacted]");
      expect(evidence?.output_tail).not.toContain(token);
      const shown = cairn(ws.dir, ["task", "show", id, "--json"]);
      expect(shown.stdout).toContain("cairn_[redacted]");
      expect(shown.stdout).not.toContain(token);
    } finally {
      await server.close();
    }
  });

  it("kills a verify command that hangs (its whole process group) and records the timeout", () => {
    const id = taskVerifiedBy(["sh", "-c", "sleep 30 & sleep 30"], 1);
    const started = Date.now();
    const out = check(id).json as CheckOut;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(out.results[0]).toMatchObject({ checked: false });
    expect(out.results[0]?.why).toMatch(/timed out after 1 s/);
    expect(evidenceOf(id, ws.dir)).toMatchObject({
      timed_out: true,
      error: expect.stringMatching(/timed out/),
    });
  });

  it("caps what it keeps of a command that prints 50 MB, but counts and hashes all of it", () => {
    const id = taskVerifiedBy([
      "node",
      "-e",
      "const b=Buffer.alloc(1<<20,120);for(let i=0;i<50;i++)process.stdout.write(b)",
    ]);
    const run = check(id);
    expect(run.code).toBe(0);
    expect(run.stdout.length).toBeLessThan(64 * 1024);
    expect((run.json as CheckOut).results[0]).toMatchObject({ checked: true });
    const evidence = evidenceOf(id, ws.dir);
    expect(evidence).toMatchObject({ exit_code: 0, output_bytes: 50 * 1024 * 1024 });
    expect(evidence?.output_tail.length).toBeLessThanOrEqual(4096);
    expect(evidence?.output_tail).toMatch(/^x+$/);
  });

  it("reports a verify command that does not exist, leaving the box unticked", () => {
    const id = taskVerifiedBy(["cairn-no-such-command-xyz", "--flag"]);
    const out = check(id).json as CheckOut;
    expect(out.results[0]).toMatchObject({ checked: false, exit_code: null });
    expect(out.results[0]?.why).toBe("command not found: cairn-no-such-command-xyz");
    expect(evidenceOf(id, ws.dir)).toMatchObject({
      exit_code: null,
      error: "command not found: cairn-no-such-command-xyz",
    });
  });

  it("passes arguments without a shell: metacharacters reach the program as text", () => {
    const id = taskVerifiedBy(["node", "-e", "console.log(process.argv[1])", "$(touch pwned); `id`"]);
    expect((check(id).json as CheckOut).results[0]?.checked).toBe(true);
    expect(evidenceOf(id, ws.dir)?.output_tail).toBe("$(touch pwned); `id`\n");
  });

  it("refuses to finish a task without criteria unless --unverified, which status then shows", () => {
    arrange(ws.dir, ["task", "add", "bare"]);
    arrange(ws.dir, ["task", "claim", "T-1"]);
    const refused = cairn(ws.dir, ["task", "finish", "T-1", "--json"]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/no acceptance criteria/);
    expect(cairn(ws.dir, ["task", "finish", "T-1", "--unverified", "--json"]).json).toMatchObject({
      result: "done",
      unverified: true,
    });
    const status = cairn(ws.dir, ["status", "--json"]).json as { board: { unverified: string[] } };
    expect(status.board.unverified).toEqual(["T-1"]);
  });

  it("refuses to finish a task while one of its parts is open, naming each; a part done or dropped lets it finish", () => {
    arrange(ws.dir, ["task", "add", "the epic"]);
    arrange(ws.dir, ["task", "add", "part one", "--parent", "T-1"]);
    arrange(ws.dir, ["task", "add", "part two", "--parent", "T-1"]);
    arrange(ws.dir, ["task", "add", "part three", "--parent", "T-1"]);
    expect(arrange(ws.dir, ["task", "claim", "T-1"]).code).toBe(0);
    expect(arrange(ws.dir, ["task", "claim", "T-3"]).code).toBe(0);
    expect(arrange(ws.dir, ["task", "claim", "T-2"]).code).toBe(0);
    expect(cairn(ws.dir, ["task", "finish", "T-2", "--unverified"]).code).toBe(0);
    const refused = cairn(ws.dir, ["task", "finish", "T-1", "--unverified", "--json"]);
    expect(refused.code).toBe(3);
    const { reason, next } = (refused.json as { refused: { reason: string; next: string } }).refused;
    expect(reason).toContain('part T-3 is active: "part two"');
    expect(reason).toContain('part T-4 is open: "part three"');
    expect(reason).not.toContain("T-2");
    expect(next).toContain("finish (or drop) its open parts");
    expect(cairn(ws.dir, ["task", "finish", "T-3", "--unverified"]).code).toBe(0);
    expect(cairn(ws.dir, ["task", "drop", "T-4", "--reason", "not needed"]).code).toBe(0);
    expect(cairn(ws.dir, ["task", "finish", "T-1", "--unverified", "--json"]).json).toMatchObject({
      result: "done",
    });
  });

  it("records a finish that rests on text-only ticks as unverified, even when its holder wrote the box", () => {
    arrange(ws.dir, ["task", "add", "bare"]);
    const bob = { CAIRN_AGENT: addAgent(ws.dir, "bob", "builder").token };
    expect(arrange(ws.dir, ["task", "claim", "T-1"], { env: bob }).code).toBe(0);
    // The route around "no criteria needs --unverified": a box of one's own, ticked by one's self.
    expect(arrange(ws.dir, ["task", "criterion", "T-1", "--text", "it is done"], { env: bob }).code).toBe(0);
    expect(cairn(ws.dir, ["task", "check", "T-1", "--all", "--json"], { env: bob }).code).toBe(0);
    expect(cairn(ws.dir, ["task", "finish", "T-1", "--json"], { env: bob }).json).toMatchObject({
      result: "done",
      unverified: true,
    });
    const status = cairn(ws.dir, ["status", "--json"]).json as { board: { unverified: string[] } };
    expect(status.board.unverified).toEqual(["T-1"]);
  });

  it("records a finish as unverified when the only command behind it is one its holder added, not its author", () => {
    // The owner's task of text criteria; bob, holding it, adds a command that cannot fail.
    arrange(ws.dir, ["task", "add", "owner's work", "--criteria", "the report reads well"]);
    arrange(ws.dir, ["task", "add", "more of the owner's work"]);
    const bob = { CAIRN_AGENT: addAgent(ws.dir, "bob", "builder").token };
    const bobId = (arrange(ws.dir, ["whoami", "--json"], { env: bob }).json as { id: string }).id;
    for (const id of ["T-1", "T-2"]) {
      expect(arrange(ws.dir, ["task", "claim", id], { env: bob }).code).toBe(0);
      const add = ["task", "criterion", id, "--text", "it is checked", "--verify", "true"];
      expect(arrange(ws.dir, add, { env: bob }).code).toBe(0);
      expect(cairn(ws.dir, ["task", "check", id, "--all", "--json"], { env: bob }).code).toBe(0);
    }
    const shown = cairn(ws.dir, ["task", "show", "T-1", "--json"]).json as {
      criteria: { n: number; added_by: string | null; verifies_done: boolean }[];
    };
    expect(shown.criteria.map((c) => c.added_by)).toEqual(["owner", bobId]);
    // cairn says which checks count, so no face (the dashboard) restates the rule: a text
    // criterion never does, bob's own command does not.
    expect(shown.criteria.map((c) => c.verifies_done)).toEqual([false, false]);
    expect(cairn(ws.dir, ["task", "show", "T-1"]).stdout).toContain(
      `it is checked (verify: true) [added by ${bobId}]`,
    );
    expect(cairn(ws.dir, ["task", "finish", "T-1", "--json"], { env: bob }).json).toMatchObject({
      result: "done",
      unverified: true,
    });
    // T-3 is bob's own task: a command its author set makes its finish verified, as it did.
    const bobsTask = arrange(
      ws.dir,
      ["task", "add", "bob's task", "--criteria", '{"text":"runs","verify":["true"]}'],
      {
        env: bob,
      },
    );
    expect(bobsTask.code).toBe(0);
    expect(arrange(ws.dir, ["task", "claim", "T-3"], { env: bob }).code).toBe(0);
    expect(cairn(ws.dir, ["task", "check", "T-3", "--all"], { env: bob }).code).toBe(0);
    expect(cairn(ws.dir, ["task", "finish", "T-3", "--json"], { env: bob }).json).toMatchObject({
      result: "done",
      unverified: false,
    });
    // A command the owner adds to a task bob holds counts: the owner decides what done means.
    const ownersCheck = cairn(ws.dir, [
      "task",
      "criterion",
      "T-2",
      "--text",
      "owner's check",
      "--verify",
      "true",
      "--json",
    ]).json as { criterion: { added_by: string; verifies_done: boolean } };
    expect(ownersCheck.criterion).toMatchObject({ added_by: "owner", verifies_done: true });
    expect(cairn(ws.dir, ["task", "check", "T-2", "--all"], { env: bob }).code).toBe(0);
    expect(cairn(ws.dir, ["task", "finish", "T-2", "--json"], { env: bob }).json).toMatchObject({
      result: "done",
      unverified: false,
    });
    const status = cairn(ws.dir, ["status", "--json"]).json as { board: { unverified: string[] } };
    expect(status.board.unverified).toEqual(["T-1"]);
  });

  it("runs the workspace definition of done and lists every unmet item", () => {
    writeFileSync(
      join(ws.dir, ".cairn", "cairn.toml"),
      '[done]\nshortcuts = ["lint"]\n[shortcuts.lint]\nargv = ["node", "-e", "process.exit(require(\\"fs\\").existsSync(\\"lint.ok\\") ? 0 : 3)"]\neffect = "read"\n',
    );
    arrange(ws.dir, ["task", "add", "t", "--criteria", "one", "--criteria", "two"]);
    arrange(ws.dir, ["task", "claim", "T-1"]);
    cairn(ws.dir, ["task", "check", "T-1", "--n", "1"]);
    const refused = cairn(ws.dir, ["task", "finish", "T-1", "--json"]);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('criterion 2 unchecked: "two"');
    expect(refused.stderr).toContain("shortcut lint failed (exited 3)");
    cairn(ws.dir, ["task", "check", "T-1", "--n", "2"]);
    writeFileSync(join(ws.dir, "lint.ok"), "");
    expect(cairn(ws.dir, ["task", "finish", "T-1"]).code).toBe(0);
  });

  it("a shortcut the checking agent defined itself verifies neither its criteria nor the definition of done", () => {
    writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), '[done]\nshortcuts = ["gate"]\n');
    const bob = addAgent(ws.dir, "bob", "builder");
    const as = { env: { CAIRN_AGENT: bob.token } };
    // Bob defines both names to succeed, before anyone names them (a name no one has defined yet
    // is refused in a criterion: see "a criterion that names a shortcut").
    expect(arrange(ws.dir, ["shortcut", "add", "gate", "--argv", "true", "--effect", "read"], as).code).toBe(
      0,
    );
    expect(arrange(ws.dir, ["shortcut", "add", "tests", "--argv", "true", "--effect", "read"], as).code).toBe(
      0,
    );
    const added = arrange(ws.dir, [
      "task",
      "add",
      "t",
      "--criteria",
      "plain",
      "--criteria",
      '{"text":"tests pass","shortcut":"tests"}',
    ]);
    expect(added.code).toBe(0);
    arrange(ws.dir, ["task", "claim", "T-1"], as);
    const check = cairn(ws.dir, ["task", "check", "T-1", "--n", "2", "--json"], as);
    expect(check.code).toBe(3);
    expect(check.json).toMatchObject({ refused: { policy: "shortcut" } });
    cairn(ws.dir, ["task", "check", "T-1", "--n", "1"], as);
    const finish = cairn(ws.dir, ["task", "finish", "T-1", "--json"], as);
    expect(finish.code).toBe(3);
    expect(finish.stderr).toContain("criterion 2 unchecked");
    expect(finish.stderr).toMatch(/shortcut gate cannot run \(.*bob/);
    // Defined by someone else (here the owner), they verify.
    expect(arrange(ws.dir, ["shortcut", "add", "gate2", "--argv", "true", "--effect", "read"]).code).toBe(0);
    writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), '[done]\nshortcuts = ["gate2"]\n');
    arrange(ws.dir, ["task", "criterion", "T-1", "--text", "owner's check", "--shortcut", "gate2"], as);
    const third = cairn(ws.dir, ["task", "check", "T-1", "--n", "3", "--json"], as);
    expect(third.code, third.stderr).toBe(0);
    // The owner redefining bob's `tests` vouches for it: it is the owner's now, bob may check with
    // it, and may no longer change it back.
    expect(cairn(ws.dir, ["shortcut", "add", "tests", "--argv", "true", "--effect", "read"]).code).toBe(0);
    const second = cairn(ws.dir, ["task", "check", "T-1", "--n", "2", "--json"], as);
    expect(second.code, second.stderr).toBe(0);
    const back = cairn(
      ws.dir,
      ["shortcut", "add", "tests", "--argv", "false", "--effect", "read", "--json"],
      as,
    );
    expect(back.code).toBe(3);
    expect(back.json).toMatchObject({ refused: { policy: "ownership" } });
  });

  it("the definition of done runs its shortcuts only as the owner defines them, not as another agent filled a name cairn.toml lists", () => {
    writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), '[done]\nshortcuts = ["gate"]\n');
    const alice = { env: { CAIRN_AGENT: addAgent(ws.dir, "alice", "builder").token } };
    const bob = { env: { CAIRN_AGENT: addAgent(ws.dir, "bob", "builder").token } };
    // Alice, of another line than bob, fills the name the owner listed with a command that passes.
    expect(
      arrange(ws.dir, ["shortcut", "add", "gate", "--argv", "true", "--effect", "read"], alice).code,
    ).toBe(0);
    arrange(ws.dir, ["task", "add", "t", "--criteria", "plain"]);
    arrange(ws.dir, ["task", "claim", "T-1"], bob);
    cairn(ws.dir, ["task", "check", "T-1", "--all"], bob);
    const finish = cairn(ws.dir, ["task", "finish", "T-1", "--json"], bob);
    expect(finish.code, finish.stderr).toBe(3);
    expect(finish.stderr).toMatch(/shortcut gate cannot run \(.*only as the owner defines it.*alice/);
    // The owner redefining it vouches for it: then it is the definition of done.
    expect(cairn(ws.dir, ["shortcut", "add", "gate", "--argv", "true", "--effect", "read"]).code).toBe(0);
    const again = cairn(ws.dir, ["task", "finish", "T-1", "--json"], bob);
    expect(again.code, again.stderr).toBe(0);
  });

  it("lets only the owner tick criteria", () => {
    arrange(ws.dir, ["task", "add", "t", "--criteria", "one"]);
    const unclaimed = cairn(ws.dir, ["task", "check", "T-1", "--all", "--json"]);
    expect(unclaimed.code).toBe(3);
    expect(unclaimed.json).toMatchObject({ refused: { policy: "ownership" } });
  });
});

describe("a criterion that names a shortcut", () => {
  it("runs the shortcut as it was defined when the criterion was set, whatever cairn.toml says by then", () => {
    writeFileSync(join(ws.dir, "check.js"), "process.exit(1)\n");
    const config = join(ws.dir, ".cairn", "cairn.toml");
    writeFileSync(config, '[shortcuts.tests]\nargv = ["node", "check.js"]\neffect = "read"\n');
    const agent = { CAIRN_AGENT: addAgent(ws.dir, "bob", "builder").token };
    // A shortcut no one has defined yet is no criterion: whoever defined it first would decide it.
    const early = cairn(ws.dir, [
      "task",
      "add",
      "t",
      "--criteria",
      JSON.stringify({ text: "gate", shortcut: "gate" }),
    ]);
    expect(early.code).toBe(4);
    expect(early.stderr).toContain('no shortcut "gate"');
    const criterion = JSON.stringify({ text: "tests pass", shortcut: "tests" });
    expect(arrange(ws.dir, ["task", "add", "t", "--criteria", criterion]).code).toBe(0);
    expect(arrange(ws.dir, ["task", "claim", "T-1"], { env: agent }).code).toBe(0);
    // cairn.toml is a file the agent being checked can write.
    writeFileSync(config, '[shortcuts.tests]\nargv = ["true"]\neffect = "read"\n');
    const checked = cairn(ws.dir, ["task", "check", "T-1", "--all", "--json"], { env: agent });
    expect(checked.json).toMatchObject({ unchecked: [1] });
    expect(evidenceOf("T-1", ws.dir)?.shortcut).toMatchObject({ name: "tests", argv: ["node", "check.js"] });
  });

  it("runs a shortcut from the store as the store holds it, not a cairn.toml entry of its name written since", () => {
    writeFileSync(join(ws.dir, "check.js"), "process.exit(1)\n");
    expect(
      arrange(ws.dir, [
        "shortcut",
        "add",
        "tests",
        "--argv",
        "node",
        "--argv",
        "check.js",
        "--effect",
        "read",
      ]).code,
    ).toBe(0);
    const agent = { CAIRN_AGENT: addAgent(ws.dir, "bob", "builder").token };
    const criterion = JSON.stringify({ text: "tests pass", shortcut: "tests" });
    expect(arrange(ws.dir, ["task", "add", "t", "--criteria", criterion]).code).toBe(0);
    expect(arrange(ws.dir, ["task", "claim", "T-1"], { env: agent }).code).toBe(0);
    // A cairn.toml entry wins over the store's for a name no criterion has set.
    writeFileSync(
      join(ws.dir, ".cairn", "cairn.toml"),
      '[shortcuts.tests]\nargv = ["true"]\neffect = "read"\n',
    );
    const checked = cairn(ws.dir, ["task", "check", "T-1", "--all", "--json"], { env: agent });
    expect(checked.json).toMatchObject({ unchecked: [1] });
    expect(evidenceOf("T-1", ws.dir)?.shortcut).toMatchObject({ name: "tests", argv: ["node", "check.js"] });
  });
});
