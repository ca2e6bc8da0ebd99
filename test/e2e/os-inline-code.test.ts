import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { gitWorkspace } from "../helpers/goals.js";
import { callTool, connectMcp, type McpHandle } from "../helpers/mcp.js";
import { machineHome, runSync } from "../helpers/workspace.js";

/**
 * A model allowed make, python3, node, perl and git runs none of them with code given on the
 * command line, in the forms the flag table once missed: a make variable (run by the built-in
 * rules' `$(CC)`), `-m` closing a cluster of python's flags, node's test reporter given a `data:`
 * URL, perl's `-d:MOD`, and a write of the repository's git configuration (run later by the
 * user's own git). Each is refused over MCP naming the machine's configuration, and nothing runs.
 */

let ws: { dir: string; cleanup: () => void };
let env: Record<string, string>;
let config: string;
let mcp: McpHandle;
const planted = (name: string) => join(ws.dir, name);

beforeAll(async () => {
  ws = gitWorkspace();
  ({ env, config } = machineHome(
    ws.dir,
    '[os]\nenabled = true\nallow = ["make", "python3", "node", "perl", "git"]\n',
  ));
  mkdirSync(join(ws.dir, "src"));
  writeFileSync(join(ws.dir, "src", "Makefile"), "main: main.c\n");
  writeFileSync(join(ws.dir, "src", "main.c"), "int main(void) { return 0; }\n");
  writeFileSync(join(ws.dir, ".git", "info", "exclude"), "P*\nsrc/\nhome/\ncairn-home/\n.cairn/\n");
  mcp = await connectMcp(ws.dir, { env });
});
afterAll(async () => {
  await mcp.close();
  ws.cleanup();
});
beforeEach(() => {
  for (const name of ["P1", "P2", "P3", "P4", "P5"]) rmSync(planted(name), { force: true });
});

const osRun = async (bin: string, args: string[]) =>
  (await callTool(mcp, "os_run", { bin, args })).structuredContent as {
    refused?: { policy: string; reason: string };
    exit_code?: number;
    stdout?: string;
  };

describe("os_run refuses code given on the command line in the forms the flag table missed", () => {
  const reporter = (file: string) =>
    `data:text/javascript,import("node:fs").then((f)=>f.writeFileSync(${JSON.stringify(file)},""));export default async function*(s){}`;
  it.each([
    ["make", () => ["-C", "src", `CC=sh -c "touch ${planted("P1")}" #`, "main"], "`make VAR=value`", "P1"],
    [
      "python3",
      () => ["-Im", "timeit", "-n1", "-r1", `__import__("os").system("touch ${planted("P2")}")`],
      "`python3 -m timeit`",
      "P2",
    ],
    [
      "node",
      () => ["--test", `--test-reporter=${reporter(planted("P3"))}`, "/dev/null"],
      "`node data: URL`",
      "P3",
    ],
    ["perl", () => [`-d:Peek;system("touch ${planted("P4")}");#`, "/dev/null"], "`perl -d:`", "P4"],
    ["git", () => ["config", "core.fsmonitor", `touch ${planted("P5")}`], "`git config (a write)`", "P5"],
  ] as [string, () => string[], string, string][])(
    "refuses %s's form, naming the configuration; nothing runs",
    async (bin, args, flag, name) => {
      const { refused } = await osRun(bin, args());
      expect(existsSync(planted(name))).toBe(false);
      expect(refused?.policy).toBe("os");
      expect(refused?.reason).toContain(flag);
      expect(refused?.reason).toContain("needs a person's confirmation");
      expect(refused?.reason).toContain(config);
      // Nothing was planted in the repository's configuration either.
      expect(spawnSync("git", ["config", "--get", "core.fsmonitor"], { cwd: ws.dir }).status).toBe(1);
    },
  );

  it("still runs the ordinary forms: make -C src main, python3 -Im with a module, node's own test reporter, git config --get and --list", async () => {
    runSync("git", ["config", "user.name", "Fixture"], ws.dir);
    const make = await osRun("make", ["-C", "src", "main"]);
    expect(make.refused, JSON.stringify(make.refused)).toBeUndefined();
    expect(make.exit_code).toBe(0);
    const python = await osRun("python3", ["-Im", "json.tool", "--help"]);
    expect(python.refused).toBeUndefined();
    expect(python.exit_code).toBe(0);
    const node = await osRun("node", ["--test", "--test-reporter=tap", "/dev/null"]);
    expect(node.refused).toBeUndefined();
    const get = await osRun("git", ["config", "--get", "user.name"]);
    expect(get.refused).toBeUndefined();
    expect(get.stdout).toBe("Fixture\n");
    const list = await osRun("git", ["config", "--list", "--show-scope"]);
    expect(list.refused).toBeUndefined();
    expect(list.exit_code).toBe(0);
  });
});
