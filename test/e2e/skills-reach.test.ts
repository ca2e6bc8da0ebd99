import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, linkSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { callTool, connectMcp } from "../helpers/mcp.js";
import { skillMd, writeTree } from "../helpers/skills.js";
import { addAgent, cairn, initWorkspace, scratchDir } from "../helpers/workspace.js";

/**
 * What a skill tool reaches: only what the user put within its reach. A repository's (or an
 * agent's) files in the project cannot stretch the tools past the project's own folder.
 */

let ws: { dir: string; cleanup: () => void };
let outside: { dir: string; cleanup: () => void };
let env: Record<string, string>;

/** The machine's operator enables `skill` to run at the digest it has now. */
function enableRuns(skill: string): void {
  const digest = cairn(ws.dir, ["skill", "digest", skill, "--json"], { env }).json as { enable_line: string };
  writeFileSync(join(env.CAIRN_HOME as string, "cairn.toml"), `[skills.run]\n${digest.enable_line}\n`);
}

beforeEach(() => {
  ws = initWorkspace();
  outside = scratchDir("cairn-outside-");
  env = { HOME: join(ws.dir, "home"), CAIRN_HOME: join(ws.dir, "cairn-home") };
  mkdirSync(env.CAIRN_HOME as string, { recursive: true });
});
afterEach(() => {
  ws.cleanup();
  outside.cleanup();
});

describe("project skill folders", () => {
  it("a skill folder linked out of the project is dropped: skill_read does not serve the files beside its SKILL.md", () => {
    // A private repository elsewhere on the machine that is itself one skill, with its secrets.
    writeTree(outside.dir, {
      "SKILL.md": skillMd({ name: "private", description: "A private skill" }, "body\n"),
      ".env": "AWS_SECRET=hunter2\n",
    });
    mkdirSync(join(ws.dir, ".claude/skills"), { recursive: true });
    symlinkSync(outside.dir, join(ws.dir, ".claude/skills/innocent"));
    const { token } = addAgent(ws.dir, "reader", "worker", ["--grant", "ro"]);
    const read = cairn(ws.dir, ["skill", "read", "innocent", ".env", "--json"], {
      env: { ...env, CAIRN_AGENT: token },
    });
    expect(read.stdout).not.toContain("hunter2");
    expect(read.code).toBe(4);
    const listed = cairn(ws.dir, ["skill", "list", "--json"], { env }).json as {
      skills: { name: string }[];
      dropped: { dir: string; reason: string }[];
    };
    expect(listed.skills.map((s) => s.name)).not.toContain("innocent");
    expect(listed.dropped).toContainEqual({
      dir: join(ws.dir, ".claude/skills/innocent"),
      origin: ".claude/skills",
      reason: "a link out of the project: a repository's skills are read only from inside it",
    });
  });

  it("a project's skills folder that is itself a link out of the project is dropped whole", () => {
    writeTree(join(outside.dir, "skills/private"), {
      "SKILL.md": skillMd({ name: "private", description: "A private skill" }, "body\n"),
      "references/notes.md": "internal\n",
    });
    mkdirSync(join(ws.dir, ".claude"), { recursive: true });
    symlinkSync(join(outside.dir, "skills"), join(ws.dir, ".claude/skills"));
    const read = cairn(ws.dir, ["skill", "read", "private", "references/notes.md", "--json"], { env });
    expect(read.stdout).not.toContain("internal");
    expect(read.code).toBe(4);
  });
});

describe("skill_run", () => {
  it("a program the enabled script runs by bare name is not taken from the project's folders on PATH", () => {
    // A skill the user installed and the operator enabled, run from a project served under
    // `npx`, which puts the project's node_modules/.bin first on PATH: agents write there.
    const skillDir = join(env.HOME as string, ".claude/skills/sys");
    writeTree(skillDir, {
      "SKILL.md": skillMd({ name: "sys", description: "System name" }, "Run scripts/name.sh\n"),
      "scripts/name.sh": "uname -s\n",
    });
    enableRuns("sys");
    const bin = join(ws.dir, "node_modules/.bin");
    writeTree(bin, { uname: "#!/bin/sh\necho PLANTED\n" });
    chmodSync(join(bin, "uname"), 0o755);
    const ran = cairn(ws.dir, ["skill", "run", "sys", "scripts/name.sh", "--json"], {
      env: { ...env, PATH: `${bin}:${process.env.PATH}` },
    });
    const out = ran.json as { exit_code: number; stdout: string };
    expect(out.stdout).not.toContain("PLANTED");
    expect(out).toMatchObject({ exit_code: 0, stdout: expect.stringMatching(/^\w+\n$/) });
  });
});

describe("hard links", () => {
  // A hard link resolves inside the skill folder, yet is the very file some other name holds:
  // `ln ~/secret.txt .claude/skills/demo/hard.txt` reads as one of the skill's files.
  const plant = () => {
    writeTree(outside.dir, {
      "secret.txt": "TOP-SECRET-CONTENT\n",
      "script.sh": "echo RAN-OUTSIDE-SCRIPT\n",
      "SKILL.md": skillMd({ name: "linked", description: "A skill file kept elsewhere" }, "SECRET-BODY\n"),
    });
    const demo = join(ws.dir, ".claude/skills/demo");
    writeTree(demo, {
      "SKILL.md": skillMd({ name: "demo", description: "A demo skill" }, "Read notes.md\n"),
      "notes.md": "plain notes\n",
    });
    mkdirSync(join(demo, "scripts"), { recursive: true });
    linkSync(join(outside.dir, "secret.txt"), join(demo, "hard.txt"));
    linkSync(join(outside.dir, "script.sh"), join(demo, "scripts/run.sh"));
    mkdirSync(join(ws.dir, ".claude/skills/linked"), { recursive: true });
    linkSync(join(outside.dir, "SKILL.md"), join(ws.dir, ".claude/skills/linked/SKILL.md"));
  };

  it("skill_read, the cli and the Skills extension's resources refuse a file with a second name, saying why", async () => {
    plant();
    const read = cairn(ws.dir, ["skill", "read", "demo", "hard.txt", "--json"], { env });
    expect(read.stdout).not.toContain("TOP-SECRET");
    expect(read.code).toBe(3);
    expect(read.stdout).toMatch(/hard link may name a file outside the skill/);
    const mcp = await connectMcp(ws.dir, { env });
    try {
      const tool = await callTool(mcp, "skill_read", { skill: "demo", path: "hard.txt" });
      expect(JSON.stringify(tool)).not.toContain("TOP-SECRET");
      expect(tool.structuredContent).toMatchObject({
        refused: { policy: "skill_path", reason: expect.stringContaining("hard link") },
      });
      // The skill's other files are still served.
      const notes = await callTool(mcp, "skill_read", { skill: "demo", path: "notes.md" });
      expect(JSON.stringify(notes)).toContain("plain notes");
      await expect(mcp.client.readResource({ uri: "skill://demo/hard.txt" })).rejects.toThrow(/hard link/);
      const raw = mcp.client as unknown as {
        request(req: { method: string; params?: unknown }, schema: unknown): Promise<Record<string, unknown>>;
      };
      const listed = await raw.request({ method: "skills/list", params: {} }, z.looseObject({}));
      const demo = (listed.skills as { uri: string; resources: { uri: string }[] }[]).find(
        (skill) => skill.uri === "skill://demo/SKILL.md",
      );
      expect(demo?.resources.map((r) => r.uri)).toContain("skill://demo/notes.md");
      expect(demo?.resources.map((r) => r.uri)).not.toContain("skill://demo/hard.txt");
      expect(JSON.stringify(listed)).not.toContain("skill://linked/");
      // The skill's index lists the file, saying it is not readable and why it may not be.
      const shown = JSON.stringify(await callTool(mcp, "skill_get", { name: "demo" }));
      expect(shown).toMatch(
        /hard\.txt \(\d+ B, not readable: a link out of the skill, or a file with another name\)/,
      );
      // A SKILL.md that is a hard link is not served as a skill either.
      expect(JSON.stringify(await callTool(mcp, "skill_list"))).not.toContain("SECRET-BODY");
      const linked = await callTool(mcp, "skill_get", { name: "linked" });
      expect(JSON.stringify(linked)).not.toContain("SECRET-BODY");
    } finally {
      await mcp.close();
    }
  });

  it("skill_run does not run a script that is a hard link, even in a skill the operator enabled", () => {
    plant();
    enableRuns("demo");
    const ran = cairn(ws.dir, ["skill", "run", "demo", "scripts/run.sh", "--json"], { env });
    expect(ran.stdout).not.toContain("RAN-OUTSIDE-SCRIPT");
    expect(ran.stdout).toMatch(/hard link may name a file outside the skill/);
  });
});

/**
 * What 40 `skill_run` calls of `skill`'s scripts/run.sh answered, one MCP session, while
 * `swapper` (a detached process group) changes the skill's folder; the swapper is killed after.
 */
async function runsWhileSwapped(skill: string, swapper: ChildProcess): Promise<string[]> {
  const outputs: string[] = [];
  const mcp = await connectMcp(ws.dir, { env });
  try {
    for (let attempt = 0; attempt < 40; attempt++) {
      const result = await callTool(mcp, "skill_run", { skill, script: "scripts/run.sh" });
      outputs.push(JSON.stringify(result.structuredContent));
    }
  } finally {
    await mcp.close();
    process.kill(-(swapper.pid as number), "SIGKILL");
  }
  return outputs;
}

describe("a skill's folder changing under a run", () => {
  it("runs from a copy that keeps the skill's shape: sibling files, a link to a folder inside it, a link out by name", () => {
    const skill = join(ws.dir, ".claude/skills/shaped");
    writeTree(skill, {
      "SKILL.md": skillMd({ name: "shaped", description: "A skill with links" }, "body\n"),
      "scripts/run.sh":
        '. "$(dirname "$0")/../lib/helper.sh"; echo "$HELPER"; cat "$(dirname "$0")/../notes"; pwd\n',
      "shared/helper.sh": "HELPER=from-shared\n",
    });
    symlinkSync("shared", join(skill, "lib"));
    writeFileSync(join(outside.dir, "notes.txt"), "outside-notes\n");
    symlinkSync(join(outside.dir, "notes.txt"), join(skill, "notes"));
    enableRuns("shaped");
    const ran = cairn(ws.dir, ["skill", "run", "shaped", "scripts/run.sh", "--json"], { env });
    expect(ran.code, ran.stdout).toBe(0);
    expect((ran.json as { stderr: string }).stderr).toBe("");
    const [helper, notes, cwd] = ((ran.json as { stdout: string }).stdout ?? "").trimEnd().split("\n");
    expect([helper, notes]).toEqual(["from-shared", "outside-notes"]);
    expect(cwd).toMatch(/cairn-skill-run-/);
  });

  it("runs from a copy no shared folder sits above: a node_modules planted in the temp directory is not what a script's require loads", () => {
    const skill = join(ws.dir, ".claude/skills/noder");
    writeTree(skill, {
      "SKILL.md": skillMd({ name: "noder", description: "A skill with a node script" }, "body\n"),
      "scripts/probe.js": 'try { require("cairn-planted-probe"); } catch { console.log("not found"); }\n',
    });
    // Anyone may write the temp directory: what a script resolves must not reach it.
    const tmp = join(outside.dir, "tmp");
    writeTree(join(tmp, "node_modules/cairn-planted-probe"), {
      "index.js": 'console.log("PLANTED");\n',
    });
    enableRuns("noder");
    // A copy a cairn killed outright left behind (its pid runs no more) goes at the next run.
    const leftover = join(env.CAIRN_HOME as string, "skill-runs", "cairn-skill-run-4194304-Ab12Cd");
    writeTree(leftover, { "SKILL.md": "left\n" });
    const ran = cairn(ws.dir, ["skill", "run", "noder", "scripts/probe.js", "--json"], {
      env: { ...env, TMPDIR: tmp },
    });
    expect(ran.code, ran.stdout).toBe(0);
    expect((ran.json as { stdout: string }).stdout).toBe("not found\n");
    expect(existsSync(leftover)).toBe(false);
  });

  it("runs only what the operator enabled while another process swaps the script by rename in a loop", async () => {
    const skill = join(ws.dir, ".claude/skills/swapped");
    writeTree(skill, {
      "SKILL.md": skillMd({ name: "swapped", description: "A skill whose script is swapped" }, "body\n"),
      "scripts/run.sh": "echo REVIEWED\n",
    });
    enableRuns("swapped");
    // Whoever can write the folder (an agent's shell) puts its own script in place and back,
    // each time whole, by rename: at any moment the file is one of the two.
    writeFileSync(join(outside.dir, "good.sh"), "echo REVIEWED\n");
    writeFileSync(join(outside.dir, "evil.sh"), "echo UNREVIEWED\n");
    const swapper = spawn(
      "sh",
      [
        "-c",
        'while :; do cp "$1/evil.sh" "$2/n" && mv "$2/n" "$2/run.sh"; cp "$1/good.sh" "$2/n" && mv "$2/n" "$2/run.sh"; done',
        "swap",
        outside.dir,
        join(skill, "scripts"),
      ],
      { stdio: "ignore", detached: true },
    );
    const outputs = await runsWhileSwapped("swapped", swapper);
    expect(outputs.filter((output) => output.includes("UNREVIEWED"))).toEqual([]);
    // The swap is not in the way of every run: some found the enabled bytes and ran them.
    expect(outputs.some((output) => output.includes("REVIEWED"))).toBe(true);
  }, 60_000);

  it("runs only what the operator enabled while a folder a link inside the skill names is swapped for a link out", async () => {
    const skill = join(ws.dir, ".claude/skills/relinked");
    writeTree(skill, {
      "SKILL.md": skillMd(
        { name: "relinked", description: "A skill with a link to a folder in it" },
        "body\n",
      ),
      "scripts/run.sh": '. "$(dirname "$0")/../lib/helper.sh"; echo "$HELPER"\n',
      "shared/helper.sh": "HELPER=REVIEWED\n",
      // Hashed and copied after shared/: the time between the walk and the copy's links.
      "zz/big.txt": "x".repeat(12 * 1024 * 1024),
    });
    symlinkSync("shared", join(skill, "lib"));
    enableRuns("relinked");
    mkdirSync(join(outside.dir, "evil"));
    writeFileSync(join(outside.dir, "evil/helper.sh"), "HELPER=UNREVIEWED\n");
    // The folder moved aside and a link out put in its place, then back, in a loop: held as a
    // folder while a run walks and hashes it, as a link once it has copied and starts the script.
    const swap = `const fs = require("node:fs");
      const [skill, evil] = process.argv.slice(1);
      const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
      for (;;) {
        fs.renameSync(skill + "/shared", skill + "/held");
        fs.symlinkSync(evil, skill + "/shared");
        pause(100);
        fs.unlinkSync(skill + "/shared");
        fs.renameSync(skill + "/held", skill + "/shared");
        pause(50);
      }`;
    const swapper = spawn(process.execPath, ["-e", swap, skill, join(outside.dir, "evil")], {
      stdio: "ignore",
      detached: true,
    });
    const outputs = await runsWhileSwapped("relinked", swapper);
    expect(outputs.filter((output) => output.includes("UNREVIEWED"))).toEqual([]);
    expect(outputs.some((output) => output.includes("REVIEWED"))).toBe(true);
  }, 90_000);
});
