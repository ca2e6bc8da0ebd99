import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { waitFor } from "../helpers/processes.js";
import { skillMd, writeTree } from "../helpers/skills.js";
import { CAIRN_BIN, cairn, cleanEnv, initWorkspace } from "../helpers/workspace.js";

/**
 * What the operator enables is a skill at a digest: whatever an agent adds to or changes in the
 * skill's folder afterwards, and a script's interpreter would load, must change that digest or
 * stay out of the run.
 */

let ws: { dir: string; cleanup: () => void };
let env: Record<string, string>;
let skillDir: string;

const run = (script = "scripts/conv.py") =>
  cairn(ws.dir, ["skill", "run", "conv", script, "a", "--json"], { env }).json as {
    stdout?: string;
    exit_code?: number;
    error?: { reason?: string; message?: string };
  };

beforeEach(() => {
  ws = initWorkspace();
  env = { HOME: join(ws.dir, "home"), CAIRN_HOME: join(ws.dir, "cairn-home") };
  mkdirSync(env.CAIRN_HOME as string, { recursive: true });
  skillDir = join(ws.dir, ".claude/skills/conv");
  writeTree(skillDir, {
    "SKILL.md": skillMd({ name: "conv", description: "Convert things" }, "Run scripts/conv.py\n"),
    "scripts/conv.py": "import json, sys\nprint(json.dumps(sys.argv[1:]))\n",
    "references/REF.md": "# ref\n",
  });
  const digest = cairn(ws.dir, ["skill", "digest", "conv", "--json"], { env }).json as {
    enable_line: string;
  };
  writeFileSync(join(env.CAIRN_HOME as string, "cairn.toml"), `[skills.run]\n${digest.enable_line}\n`);
  expect(run().stdout).toBe('["a"]\n');
});
afterEach(() => ws.cleanup());

describe("skill_run against a skill changed after it was enabled", () => {
  it("a planted link out of the skill changes the digest: it does not shadow a module unreviewed", () => {
    const evil = join(ws.dir, "evil.py");
    writeFileSync(evil, 'print("PWNED")\ndumps = lambda value: "owned"\n');
    symlinkSync(evil, join(skillDir, "scripts/json.py"));
    const stale = run();
    expect(stale.stdout).toBeUndefined();
    // Refused as changed, or (the file being in the project) as a link to what no digest holds.
    expect(JSON.stringify(stale)).toMatch(
      /changed since the operator enabled it|files its digest does not cover/,
    );
  });

  it("a planted link to a folder (inside the skill) changes the digest too", () => {
    writeTree(skillDir, { "references/node_modules/json/__init__.py": 'print("PWNED")\n' });
    symlinkSync("../references/node_modules/json", join(skillDir, "scripts/json"));
    const stale = run();
    expect(stale.stdout).toBeUndefined();
    expect(JSON.stringify(stale)).toContain("changed since the operator enabled it");
  });

  it("a FIFO planted where a module resolves (a writer behind it supplies the code) changes the digest", () => {
    execFileSync("mkfifo", [join(skillDir, "scripts/json.py")]);
    const stale = run();
    expect(stale.stdout).toBeUndefined();
    expect(JSON.stringify(stale)).toContain("changed since the operator enabled it");
  });

  it("a skill named like what every object inherits (constructor, toString) is not enabled by it", () => {
    for (const name of ["constructor", "toString"]) {
      writeTree(join(ws.dir, ".claude/skills", name), {
        "SKILL.md": skillMd({ description: "Inherited name" }, "body\n"),
        "scripts/go.py": 'print("ran")\n',
      });
      const ran = cairn(ws.dir, ["skill", "run", name, "scripts/go.py", "--json"], { env });
      expect(ran.code, name).toBe(3);
      expect(JSON.stringify(ran.json), name).toContain(`does not enable skill ${name}`);
    }
    const listed = cairn(ws.dir, ["skill", "list", "--json"], { env }).json as {
      skills: { name: string; run_enabled: boolean }[];
    };
    expect(listed.skills.filter((s) => s.run_enabled).map((s) => s.name)).toEqual(["conv"]);
  });

  it("a compiled copy forged into __pycache__ (which the digest leaves out) is not what runs", () => {
    writeTree(skillDir, {
      "scripts/main.py": "import helper\nhelper.go()\n",
      "scripts/helper.py": 'def go():\n    print("honest")\n',
    });
    const digest = cairn(ws.dir, ["skill", "digest", "conv", "--json"], { env }).json as {
      enable_line: string;
    };
    writeFileSync(join(env.CAIRN_HOME as string, "cairn.toml"), `[skills.run]\n${digest.enable_line}\n`);
    // An evil helper of the same size and mtime, compiled where Python looks for helper's copy.
    const helper = join(skillDir, "scripts/helper.py");
    const evil = join(ws.dir, "evil_helper.py");
    writeFileSync(evil, 'def go():\n    print("PWNED!")\n');
    const { mtime } = statSync(helper);
    utimesSync(evil, mtime, mtime);
    const forged = spawnSync(
      "python3",
      [
        "-c",
        "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2] + '/helper.' + sys.implementation.cache_tag + '.pyc')",
        evil,
        join(skillDir, "scripts/__pycache__"),
      ],
      { encoding: "utf8" },
    );
    expect(forged.status, forged.stderr).toBe(0);
    expect(run("scripts/main.py").stdout).toBe("honest\n");
  });

  it("a package in the skill's own node_modules (which the index leaves out) is covered: changing it stops the run", () => {
    writeTree(skillDir, {
      "scripts/main.js": 'console.log(require("helper"))\n',
      "scripts/node_modules/helper/index.js": 'module.exports = "honest"\n',
      "scripts/.env": "MODE=safe\n",
    });
    const digest = cairn(ws.dir, ["skill", "digest", "conv", "--json"], { env }).json as {
      enable_line: string;
      files: { path: string }[];
    };
    expect(digest.files.map((f) => f.path)).toContain("scripts/node_modules/helper/index.js");
    writeFileSync(join(env.CAIRN_HOME as string, "cairn.toml"), `[skills.run]\n${digest.enable_line}\n`);
    expect(run("scripts/main.js").stdout).toBe("honest\n");
    writeTree(skillDir, { "scripts/node_modules/helper/index.js": 'module.exports = "PWNED"\n' });
    const stale = run("scripts/main.js");
    expect(stale.stdout).toBeUndefined();
    expect(JSON.stringify(stale)).toContain("changed since the operator enabled it");
  });

  it("a script planted deeper than the index walks does not run unreviewed", () => {
    writeTree(skillDir, { "scripts/a/b/c/d/e/f/x.py": 'print("PWNED")\n' });
    const planted = run("scripts/a/b/c/d/e/f/x.py");
    expect(planted.stdout).toBeUndefined();
    expect(JSON.stringify(planted)).toContain("files its digest does not cover");
  });

  it("a module reached through a link to a folder the digest passes over (lib~, .git) does not run unreviewed", () => {
    for (const hidden of ["lib~", ".git/lib"]) {
      writeTree(skillDir, {
        [`${hidden}/util/__init__.py`]: "",
        [`${hidden}/util/helper.py`]: 'def go():\n    return "reviewed"\n',
        "scripts/use.py": "from util import helper\nprint(helper.go())\n",
      });
      symlinkSync(`../${hidden}/util`, join(skillDir, "scripts/util"));
      const digest = cairn(ws.dir, ["skill", "digest", "conv", "--json"], { env }).json as {
        truncated: boolean;
        files: { path: string }[];
        enable_line: string;
      };
      // Nothing of the helper is hashed: the digest cannot stand for it.
      expect(
        digest.files.map((f) => f.path),
        hidden,
      ).not.toContain(`${hidden}/util/helper.py`);
      expect(digest.truncated, hidden).toBe(true);
      writeFileSync(join(env.CAIRN_HOME as string, "cairn.toml"), `[skills.run]\n${digest.enable_line}\n`);
      writeTree(skillDir, { [`${hidden}/util/helper.py`]: 'def go():\n    return "PWNED"\n' });
      const ran = run("scripts/use.py");
      expect(ran.stdout, hidden).toBeUndefined();
      expect(JSON.stringify(ran), hidden).toContain("files its digest does not cover");
      rmSync(join(skillDir, "scripts/util"));
    }
  });

  it("a module reached through a link out of the skill into the project does not run unreviewed", () => {
    // The project is where agents write: what such a link reaches is hashed nowhere.
    writeTree(ws.dir, {
      "tools/util/__init__.py": "",
      "tools/util/helper.py": 'def go():\n    return "reviewed"\n',
    });
    writeTree(skillDir, { "scripts/use.py": "from util import helper\nprint(helper.go())\n" });
    symlinkSync(join(ws.dir, "tools/util"), join(skillDir, "scripts/util"));
    const digest = cairn(ws.dir, ["skill", "digest", "conv", "--json"], { env }).json as {
      truncated: boolean;
      enable_line: string;
    };
    expect(digest.truncated).toBe(true);
    writeFileSync(join(env.CAIRN_HOME as string, "cairn.toml"), `[skills.run]\n${digest.enable_line}\n`);
    writeTree(ws.dir, { "tools/util/helper.py": 'def go():\n    return "PWNED"\n' });
    const ran = run("scripts/use.py");
    expect(ran.stdout).toBeUndefined();
    expect(JSON.stringify(ran)).toContain("files its digest does not cover");
  });

  it("a module too large for the digest's byte bound does not shadow one unreviewed", () => {
    writeTree(skillDir, {
      "scripts/json.py": `print("PWNED")\ndumps = lambda value: "owned"\n${"#".repeat(17 * 1024 * 1024)}\n`,
    });
    const stale = run();
    expect(stale.stdout).toBeUndefined();
    expect(JSON.stringify(stale)).toContain("files its digest does not cover");
  });

  it("a skill past the digest's count bound does not run: what its digest leaves out could change", () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 520; i++) many[`references/n${String(i).padStart(4, "0")}.md`] = "x\n";
    writeTree(skillDir, many);
    const digest = cairn(ws.dir, ["skill", "digest", "conv", "--json"], { env }).json as {
      truncated: boolean;
      enable_line: string;
    };
    expect(digest.truncated).toBe(true);
    writeFileSync(join(env.CAIRN_HOME as string, "cairn.toml"), `[skills.run]\n${digest.enable_line}\n`);
    // scripts/ sorts past the cut: the enabled digest does not hold the script itself.
    writeTree(skillDir, { "scripts/conv.py": 'print("PWNED")\n' });
    const stale = run();
    expect(stale.stdout).toBeUndefined();
    expect(JSON.stringify(stale)).toContain("files its digest does not cover");
  });

  it("an interpreter planted inside the workspace, first on PATH (npx's node_modules/.bin), is not what runs", () => {
    const planted = join(ws.dir, "node_modules", ".bin");
    writeTree(planted, { python3: '#!/bin/sh\necho "PWNED $*"\n' });
    chmodSync(join(planted, "python3"), 0o755);
    const ran = cairn(ws.dir, ["skill", "run", "conv", "scripts/conv.py", "a", "--json"], {
      env: { ...env, PATH: `${planted}:${process.env.PATH}` },
    }).json as { stdout?: string; argv?: string[] };
    expect(ran.stdout).toBe('["a"]\n');
    expect(ran.argv?.[0]).not.toContain(ws.dir);
  });

  it("SIGTERM of cairn mid-run leaves no per-run folder behind in the temp directory", async () => {
    writeTree(skillDir, { "scripts/wait.py": "import time\ntime.sleep(60)\n" });
    const digest = cairn(ws.dir, ["skill", "digest", "conv", "--json"], { env }).json as {
      enable_line: string;
    };
    writeFileSync(join(env.CAIRN_HOME as string, "cairn.toml"), `[skills.run]\n${digest.enable_line}\n`);
    const tmp = join(ws.dir, "tmp");
    mkdirSync(tmp);
    const child = spawn(process.execPath, [CAIRN_BIN, "skill", "run", "conv", "scripts/wait.py"], {
      cwd: ws.dir,
      env: cleanEnv({ ...env, TMPDIR: tmp }),
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    // Both the skill's private copy (in CAIRN_HOME) and the run's compiled-code prefix (in the
    // temp directory): the script is running.
    const copies = join(env.CAIRN_HOME as string, "skill-runs");
    const holds = (dir: string, prefix: string) => {
      try {
        return readdirSync(dir).some((name) => name.startsWith(prefix));
      } catch {
        return false;
      }
    };
    await waitFor(
      () => holds(copies, "cairn-skill-run-") && holds(tmp, "cairn-pycache-"),
      10_000,
      "the run to start",
    );
    child.kill("SIGTERM");
    expect(await exited).toBe(143);
    expect(readdirSync(tmp)).toEqual([]);
    expect(readdirSync(copies)).toEqual([]);
  });

  it("kill -9 of cairn mid-run: the next run removes the per-run folders it left in the temp directory", async () => {
    writeTree(skillDir, {
      "scripts/wait.py": "import os, sys, time\nopen(sys.argv[1], 'w').close()\ntime.sleep(60)\n",
    });
    const digest = cairn(ws.dir, ["skill", "digest", "conv", "--json"], { env }).json as {
      enable_line: string;
    };
    writeFileSync(join(env.CAIRN_HOME as string, "cairn.toml"), `[skills.run]\n${digest.enable_line}\n`);
    const tmp = join(ws.dir, "tmp");
    mkdirSync(tmp);
    const started = join(ws.dir, "started");
    const child = spawn(process.execPath, [CAIRN_BIN, "skill", "run", "conv", "scripts/wait.py", started], {
      cwd: ws.dir,
      env: cleanEnv({ ...env, TMPDIR: tmp }),
      stdio: "ignore",
    });
    const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
    await waitFor(
      () => statSync(started, { throwIfNoEntry: false }) !== undefined,
      10_000,
      "the script to start",
    );
    expect(readdirSync(tmp).filter((name) => name.startsWith("cairn-pycache-"))).toHaveLength(1);
    child.kill("SIGKILL");
    await exited;
    // The script it left running goes with the sweep; what it left in the temp directory goes
    // with the next run, as the skill's private copy does.
    cairn(ws.dir, ["sweep"], { env: { ...env, TMPDIR: tmp } });
    const next = cairn(ws.dir, ["skill", "run", "conv", "scripts/conv.py", "b", "--json"], {
      env: { ...env, TMPDIR: tmp },
    }).json as { stdout?: string };
    expect(next.stdout).toBe('["b"]\n');
    expect(readdirSync(tmp)).toEqual([]);
    expect(readdirSync(join(env.CAIRN_HOME as string, "skill-runs"))).toEqual([]);
  });
});
