import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cairn, initWorkspace, scratchDir } from "../helpers/workspace.js";

/**
 * With `allow = ["*"]` the confirm list is all that stands between a model and a shell: a listed
 * program reached by another name (a version suffix, a link) must need a person just the same.
 */

let ws: { dir: string; cleanup: () => void };
let operator: { dir: string; cleanup: () => void };
let env: Record<string, string>;

beforeAll(() => {
  ws = initWorkspace();
  // The operator's folder of programs is outside the workspace: binaries inside it never run.
  operator = scratchDir("cairn-operator-bin-");
  const bin = operator.dir;
  const python = realpathSync(execFileSync("sh", ["-c", "command -v python3"], { encoding: "utf8" }).trim());
  // As distributions name them: python3.12, and a link to the system shell under another name.
  symlinkSync(python, join(bin, "python3.99"));
  symlinkSync("/bin/sh", join(bin, "rsh-lookalike"));
  env = {
    HOME: join(ws.dir, "home"),
    CAIRN_HOME: join(ws.dir, "cairn-home"),
    PATH: `${bin}:${process.env.PATH}`,
  };
  mkdirSync(env.CAIRN_HOME as string, { recursive: true });
  writeFileSync(
    join(env.CAIRN_HOME as string, "cairn.toml"),
    '[os]\nenabled = true\nallow = ["*"]\ndeny = ["tclsh"]\n',
  );
});
afterAll(() => {
  ws.cleanup();
  operator.cleanup();
});

const osRun = (bin: string, ...args: string[]) =>
  cairn(ws.dir, ["os", "run", bin, "--json", "--", ...args], { env });

describe("os run judges every name a program goes by", () => {
  it("a versioned interpreter name with -c needs a person; without it, it runs", () => {
    const refused = osRun("python3.99", "-c", "print('ran')");
    expect(refused.code).toBe(3);
    expect(refused.stdout + refused.stderr).not.toContain("ran\n");
    expect(refused.stderr).toContain("runs code given on the command line");
    expect(osRun("python3.99", "--version").code).toBe(0);
  });

  it("a link to a shell under an unlisted name needs a person", () => {
    const refused = osRun("rsh-lookalike", "-c", "echo ran");
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain("needs a person's confirmation");
  });

  it("a versioned name of a denied binary is denied too", () => {
    const refused = osRun("tclsh8.6", "/dev/null");
    // Refused whether or not tclsh is installed here: the deny list is judged before PATH.
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain("`tclsh` is on the deny list");
  });

  it("wrappers and options that run another program need a person: sqlite3 (its edit()), git --upload-pack", () => {
    const sqlite = osRun("sqlite3", ":memory:", "select edit('x', 'sh -c \"echo ran >&2\" --');");
    expect(sqlite.code).toBe(3);
    expect(sqlite.stderr).not.toContain("ran\n");
    const git = osRun("git", "clone", "--upload-pack=sh -c 'echo ran >&2' #", ws.dir, join(ws.dir, "clone"));
    expect(git.code).toBe(3);
    expect(git.stderr).toContain("`git --upload-pack` runs code given on the command line");
  });

  it("code given on the command line by other flags needs a person: node --import data:, python3 -m timeit, perl -M…;, make --eval", () => {
    for (const [bin, ...args] of [
      ["node", "--import", 'data:text/javascript,console.log("ran")', "/dev/null"],
      ["node", '--import=data:text/javascript,console.log("ran")', "/dev/null"],
      ["node", "--experimental-loader", 'data:text/javascript,console.log("ran")', "/dev/null"],
      ["python3", "-m", "timeit", "-n1", "-r1", 'print("ran")'],
      ["python3", "-m", "pdb", "-c", 'print("ran")', "/dev/null"],
      ["perl", "-Mstrict;print qq(ran\\n);#", "/dev/null"],
      ["make", "--eval=$(info ran)", "-f", "/dev/null"],
      ["make", "-E", "$(info ran)", "-f", "/dev/null"],
    ] as string[][]) {
      const refused = osRun(bin as string, ...args);
      expect(refused.code, [bin, ...args].join(" ")).toBe(3);
      expect(refused.stdout + refused.stderr).not.toContain("ran\n");
      expect(refused.stderr).toContain("runs code given on the command line");
    }
    // Their everyday forms still run.
    expect(osRun("python3", "-m", "json.tool", "--help").code).toBe(0);
    expect(osRun("perl", "-Mstrict", "-v").code).toBe(0);
  });

  it("a binary planted in a folder of the workspace that PATH names (node_modules/.bin under npx) is never what runs", () => {
    const planted = join(ws.dir, "node_modules", ".bin");
    mkdirSync(planted, { recursive: true });
    writeFileSync(join(planted, "ls"), `#!/bin/sh\necho PLANTED\n`);
    chmodSync(join(planted, "ls"), 0o755);
    const run = cairn(ws.dir, ["os", "run", "ls", "--json", "--", "-d", "."], {
      env: { ...env, PATH: `${planted}:${env.PATH}` },
    });
    expect(run.stdout).not.toContain("PLANTED");
    expect(run.code).toBe(0);
    expect((run.json as { argv: string[] }).argv[0]).not.toContain(ws.dir);
  });

  it("nor is a program an allowed one runs by bare name in turn: git's own git-<verb> helper, planted on that PATH", () => {
    const planted = join(ws.dir, "node_modules", ".bin");
    mkdirSync(planted, { recursive: true });
    writeFileSync(join(planted, "git-pwn"), `#!/bin/sh\necho PLANTED\n`);
    chmodSync(join(planted, "git-pwn"), 0o755);
    const run = cairn(ws.dir, ["os", "run", "git", "pwn", "--json"], {
      env: { ...env, PATH: `${planted}:${env.PATH}` },
    });
    expect(run.stdout).not.toContain("PLANTED");
    expect(run.json).toMatchObject({ exit_code: 1, stderr: expect.stringMatching(/not a git command/) });
  });
});
