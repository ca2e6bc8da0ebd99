import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { callTool, connectMcp, type McpHandle } from "../helpers/mcp.js";
import { addAgent, initWorkspace, machineHome } from "../helpers/workspace.js";

/**
 * An agent with a write grant writes a file in the workspace; an allowed vim or less must not
 * run it as code: vim's startup file (`-u`) and its typed keys (`-s`) are files of commands, as
 * `-S` is, and a lesskey file (`--lesskey-src`) sets LESSOPEN, a shell line less runs on every
 * file it opens, even when it only copies the file to a pipe. diff3 and sdiff run the diff program
 * they are given, and sdiff writes the merge where `-o` says.
 */

let ws: { dir: string; cleanup: () => void };
let mcp: McpHandle;
const pwned = () => join(ws.dir, "PWNED");

beforeAll(async () => {
  ws = initWorkspace();
  const { env } = machineHome(
    ws.dir,
    '[os]\nenabled = true\nallow = ["vim", "less", "diff3", "sdiff"]\ntimeout_seconds = 10\n',
  );
  const { token } = addAgent(ws.dir, "writer", "worker");
  writeFileSync(join(ws.dir, "notes.txt"), "fixture\n");
  writeFileSync(join(ws.dir, "e.vim"), `call system("touch ${pwned()}")\nqa!\n`);
  writeFileSync(join(ws.dir, "keys.txt"), `:call system("touch ${pwned()}")\n:qa!\n`);
  writeFileSync(join(ws.dir, "d.sh"), `#!/bin/sh\ntouch ${pwned()}\n`, { mode: 0o755 });
  writeFileSync(join(ws.dir, "keys.less"), `#env\nLESSOPEN = |touch ${pwned()}; cat %s\n`);
  mcp = await connectMcp(ws.dir, { env: { ...env, CAIRN_AGENT: token } });
});
afterAll(async () => {
  await mcp.close();
  ws.cleanup();
});
beforeEach(() => rmSync(pwned(), { force: true }));

const osRun = async (bin: string, args: string[]) =>
  (await callTool(mcp, "os_run", { bin, args })).structuredContent as {
    refused?: { policy: string; reason: string };
    exit_code?: number;
    stdout?: string;
  };

describe("os_run refuses a file of commands given to vim or less, and a program or output file given to diff3 or sdiff", () => {
  it.each([
    ["vim", ["-u", "e.vim", "-es"]],
    ["vim", ["-ue.vim", "-es"]],
    ["vim", ["-s", "keys.txt", "notes.txt"]],
    ["less", ["--lesskey-src=keys.less", "notes.txt"]],
    ["less", ["--lesskey-s", "keys.less", "notes.txt"]],
    ["less", ["-k", "keys.less", "notes.txt"]],
    ["diff3", ["--diff-program=./d.sh", "notes.txt", "notes.txt", "notes.txt"]],
    ["sdiff", ["--diff-prog", "./d.sh", "notes.txt", "notes.txt"]],
    ["sdiff", ["-o", "PWNED", "notes.txt", "notes.txt"]],
  ])("%s %j needs a person; nothing runs", async (bin, args) => {
    const out = await osRun(bin, args);
    expect(out.refused?.policy).toBe("os");
    expect(out.refused?.reason).toMatch(/needs a person's confirmation/);
    expect(existsSync(pwned())).toBe(false);
  });

  it("less still shows a file", async () => {
    const out = await osRun("less", ["notes.txt"]);
    expect(out.stdout).toBe("fixture\n");
  });
});
