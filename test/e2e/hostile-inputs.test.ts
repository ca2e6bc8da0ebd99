import { spawn } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, connectMcp, type McpHandle } from "../helpers/mcp.js";
import { skillMd, writeSkillFixture, writeTree } from "../helpers/skills.js";
import { cairn, initWorkspace } from "../helpers/workspace.js";

/**
 * A corpus of hostile inputs against the skill, command and OS tools, through one real
 * `cairn mcp`: every one is refused, fails as an error, or is harmless (checked), and no
 * answer ever carries a byte of a file outside the skills (/etc/passwd is the canary).
 */

let ws: { dir: string; cleanup: () => void };
let env: Record<string, string>;
let mcp: McpHandle;
const skills = () => join(ws.dir, ".claude", "skills");

beforeAll(async () => {
  ws = initWorkspace();
  env = { HOME: join(ws.dir, "home"), CAIRN_HOME: join(ws.dir, "cairn-home") };
  mkdirSync(env.CAIRN_HOME as string, { recursive: true });
  writeSkillFixture(ws.dir, env.HOME as string);
  writeTree(skills(), {
    "unclosed/SKILL.md": "---\ndescription: never closed\nbody text without an end\n",
    "huge/SKILL.md": skillMd({ description: "A very large skill" }, `${"word ".repeat(400_000)}\n`),
    "bomb/SKILL.md": `---\na: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d]\ndescription: alias bomb\n---\nbody\n`,
    "proto/SKILL.md":
      "---\n__proto__: { isAdmin: true }\ndescription: prototype pollution attempt\n---\nbody\n",
    "binary/SKILL.md": Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x00, 0x01]),
    "node_modules/evil/SKILL.md": skillMd({ description: "a dependency's skill" }, "evil\n"),
    "pdf/node_modules/dep/SKILL.md": skillMd({ description: "nested in a dependency" }, "nested\n"),
    "pdf/scripts/ok.sh": 'printf "%s|" "$@"\n',
  });
  symlinkSync("/bin/sh", join(skills(), "pdf/scripts/shell-link"));
  // Inside the skill: a link out of it into the project would keep the skill from running at all.
  symlinkSync("../references", join(skills(), "pdf/scripts/dir-link"));
  writeFileSync(join(skills(), "pdf/references/swap"), "safe\n");
  writeTree(ws.dir, {
    ".claude/commands/status.md": "Status for $ARGUMENTS:\n!`git log $ARGUMENTS`\n",
    ".claude/commands/js.md":
      "---js\n{ description: require('fs').writeFileSync('PWNED3','x') }\n---\nbody\n",
  });
  writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), "[skills]\ntimeout_seconds = 1\n");
  const digest = cairn(ws.dir, ["skill", "digest", "pdf", "--json"], { env }).json as { enable_line: string };
  writeFileSync(
    join(env.CAIRN_HOME as string, "cairn.toml"),
    `[skills.run]\n${digest.enable_line}\n\n[os]\nenabled = true\nallow = ["ls", "echo", "git status", "env", "sh", "python3", "node", "find"]\n`,
  );
  mcp = await connectMcp(ws.dir, { env });
});
afterAll(async () => {
  await mcp.close();
  ws.cleanup();
});

type Expect = "refused" | "blocked" | ((out: Record<string, unknown>, text: string) => void);
const big = (n: number) => "a".repeat(n);

const CORPUS: [string, string, Record<string, unknown>, Expect][] = [
  // skill_read: traversal, encodings, absolute paths, NUL, links
  ["read ../../etc/passwd", "skill_read", { skill: "pdf", path: "../../etc/passwd" }, "refused"],
  ["read ../other skill", "skill_read", { skill: "pdf", path: "../shadowed/SKILL.md" }, "refused"],
  ["read scripts/../../x", "skill_read", { skill: "pdf", path: "scripts/../../x" }, "refused"],
  ["read ./../SKILL.md", "skill_read", { skill: "pdf", path: "./../SKILL.md" }, "refused"],
  ["read deep ..", "skill_read", { skill: "pdf", path: "references/../../../etc/passwd" }, "refused"],
  ["read /etc/passwd", "skill_read", { skill: "pdf", path: "/etc/passwd" }, "refused"],
  ["read ~/.ssh", "skill_read", { skill: "pdf", path: "~/.ssh/id_rsa" }, "refused"],
  ["read C:\\ drive", "skill_read", { skill: "pdf", path: "C:\\Windows\\win.ini" }, "refused"],
  ["read UNC share", "skill_read", { skill: "pdf", path: "\\\\server\\share" }, "refused"],
  ["read backslash ..", "skill_read", { skill: "pdf", path: "scripts\\..\\..\\x" }, "refused"],
  ["read %2e%2e encoded", "skill_read", { skill: "pdf", path: "%2e%2e/%2e%2e/etc/passwd" }, "blocked"],
  ["read ..%2f encoded", "skill_read", { skill: "pdf", path: "..%2f..%2fetc%2fpasswd" }, "blocked"],
  ["read NUL", "skill_read", { skill: "pdf", path: "REF.md\0.png" }, "refused"],
  ["read empty", "skill_read", { skill: "pdf", path: "" }, "refused"],
  ["read .", "skill_read", { skill: "pdf", path: "." }, "refused"],
  ["read a folder", "skill_read", { skill: "pdf", path: "references" }, "refused"],
  ["read symlink out", "skill_read", { skill: "pdf", path: "references/leak" }, "refused"],
  ["read 5000-char path", "skill_read", { skill: "pdf", path: big(5_000) }, "blocked"],
  ["read 5 MB path", "skill_read", { skill: "pdf", path: big(5 * 1024 * 1024) }, "blocked"],
  ["read negative offset", "skill_read", { skill: "pdf", path: "references/REF.md", offset: -5 }, "blocked"],
  [
    "read offset past end",
    "skill_read",
    { skill: "pdf", path: "references/REF.md", offset: 1e9 },
    (o) => expect(o.text).toBe(""),
  ],
  [
    "read doubled slash",
    "skill_read",
    { skill: "pdf", path: "references//REF.md" },
    (o) => expect(o.text).toContain("Reference"),
  ],
  ["read look-alike dot", "skill_read", { skill: "pdf", path: "references/REF\u2024md" }, "blocked"],
  ["read full-width name", "skill_read", { skill: "pdf", path: "ＳＫＩＬＬ.md" }, "blocked"],
  ["read binary", "skill_read", { skill: "pdf", path: "assets/font.ttf" }, (o) => expect(o.text).toBeNull()],
  ["read skill ../pdf", "skill_read", { skill: "../pdf", path: "SKILL.md" }, "blocked"],
  ["read skill pdf/../shadowed", "skill_read", { skill: "pdf/../shadowed", path: "SKILL.md" }, "blocked"],
  ["read skill PDF (case)", "skill_read", { skill: "PDF", path: "SKILL.md" }, "blocked"],
  ["read skill with NUL", "skill_read", { skill: "pdf\0", path: "SKILL.md" }, "blocked"],
  ["read symlinked SKILL.md skill", "skill_read", { skill: "secret-link", path: "SKILL.md" }, "blocked"],
  ["read extra field", "skill_read", { skill: "pdf", path: "SKILL.md", follow: true }, "blocked"],
  // skill-<name> and skill_get: executable or broken front matter, huge and binary files
  ["skill tool with smuggled arg", "skill-pdf", { path: "/etc/passwd" }, "blocked"],
  ["---js header", "skill_get", { name: "jsfront" }, (o) => expect(String(o.body)).toContain("A body after")],
  [
    "unclosed front matter",
    "skill_get",
    { name: "unclosed" },
    (o) => expect(String(o.warnings)).toContain("never closed"),
  ],
  ["alias bomb", "skill_get", { name: "bomb" }, (o) => expect(o.name).toBe("bomb")],
  [
    "__proto__ key",
    "skill_get",
    { name: "proto" },
    (o) => expect(Object.getPrototypeOf(o)).toBe(Object.prototype),
  ],
  ["2 MB SKILL.md", "skill-huge", {}, (o) => expect(o.body_truncated).toBe(true)],
  ["binary SKILL.md", "skill_get", { name: "binary" }, "blocked"],
  ["skill in node_modules", "skill_get", { name: "node_modules" }, "blocked"],
  ["skill named evil (inside node_modules)", "skill_get", { name: "evil" }, "blocked"],
  ["5 MB skill name", "skill_get", { name: big(5 * 1024 * 1024) }, "blocked"],
  // skill_run: outside scripts/, links, option injection, shell metacharacters, long argv
  ["run SKILL.md", "skill_run", { skill: "pdf", script: "SKILL.md" }, "refused"],
  [
    "run another skill's script",
    "skill_run",
    { skill: "pdf", script: "../shadowed/scripts/x.sh" },
    "refused",
  ],
  ["run scripts/../SKILL.md", "skill_run", { skill: "pdf", script: "scripts/../SKILL.md" }, "refused"],
  ["run /bin/sh", "skill_run", { skill: "pdf", script: "/bin/sh" }, "refused"],
  ["run the scripts folder", "skill_run", { skill: "pdf", script: "scripts" }, "refused"],
  ["run scripts/", "skill_run", { skill: "pdf", script: "scripts/" }, "refused"],
  [
    "run symlink to /bin/sh",
    "skill_run",
    { skill: "pdf", script: "scripts/shell-link", args: ["-c", "id"] },
    "refused",
  ],
  ["run symlinked folder", "skill_run", { skill: "pdf", script: "scripts/dir-link/REF.md" }, "refused"],
  ["run NUL in script", "skill_run", { skill: "pdf", script: "scripts/ok.sh\0" }, "refused"],
  ["run NUL in an arg", "skill_run", { skill: "pdf", script: "scripts/ok.sh", args: ["a\0b"] }, "refused"],
  [
    "run 65 args",
    "skill_run",
    { skill: "pdf", script: "scripts/ok.sh", args: Array(65).fill("x") },
    "refused",
  ],
  ["run a 9 KB arg", "skill_run", { skill: "pdf", script: "scripts/ok.sh", args: [big(9_000)] }, "refused"],
  ["run a skill not enabled", "skill_run", { skill: "personal", script: "scripts/x.sh" }, "refused"],
  [
    "run option injection",
    "skill_run",
    { skill: "pdf", script: "scripts/ok.sh", args: ["--help", "-rf"] },
    (o) => expect(o.stdout).toBe("--help|-rf|"),
  ],
  [
    "run $(touch)",
    "skill_run",
    { skill: "pdf", script: "scripts/ok.sh", args: ["$(touch PWNED2)", "`id`", "; rm -rf /"] },
    (o) => expect(o.stdout).toBe("$(touch PWNED2)|`id`|; rm -rf /|"),
  ],
  [
    "run past its deadline",
    "skill_run",
    { skill: "pdf", script: "scripts/sleep.js" },
    (o) => expect(o.timed_out).toBe(true),
  ],
  // command_get: traversal by name, huge arguments, substitution into `!` lines
  ["command ../../etc/passwd", "command_get", { name: "../../etc/passwd", args: "" }, "blocked"],
  ["command /etc/passwd", "command_get", { name: "/etc/passwd", args: "" }, "blocked"],
  ["command git/../status", "command_get", { name: "git/../status", args: "" }, "blocked"],
  ["command with NUL", "command_get", { name: "status\0", args: "" }, "blocked"],
  ["command 5 MB args", "command_get", { name: "status", args: big(5 * 1024 * 1024) }, "blocked"],
  [
    "command args into ! line",
    "command_get",
    { name: "status", args: "$(touch PWNED4); id" },
    (o) => expect(o.inert).toHaveLength(1),
  ],
  [
    "command args re-expansion",
    "command_get",
    { name: "status", args: "$ARGUMENTS $0" },
    (o) => expect(String(o.text)).toContain("Status for $ARGUMENTS $0:"),
  ],
  [
    "command ---js header",
    "command_get",
    { name: "js", args: "" },
    (o) => expect(String(o.text)).toContain("---js"),
  ],
  // os_run: paths, options as names, look-alikes, wrappers, interpreters, long argv
  ["os /bin/ls", "os_run", { bin: "/bin/ls" }, "refused"],
  ["os ./ls", "os_run", { bin: "./ls" }, "refused"],
  ["os ..", "os_run", { bin: ".." }, "refused"],
  ["os backslash", "os_run", { bin: "..\\ls" }, "refused"],
  ["os -rf as a name", "os_run", { bin: "-rf" }, "refused"],
  ["os NUL", "os_run", { bin: "ls\0" }, "refused"],
  ["os full-width ls", "os_run", { bin: "ｌｓ" }, "refused"],
  ["os trailing space", "os_run", { bin: "ls " }, "refused"],
  ["os empty name", "os_run", { bin: "" }, "refused"],
  ["os env rm", "os_run", { bin: "env", args: ["rm", "-rf", "/"] }, "refused"],
  ["os sh -c", "os_run", { bin: "sh", args: ["-c", "id"] }, "refused"],
  ["os python3 -c", "os_run", { bin: "python3", args: ["-c", "print(1)"] }, "refused"],
  ["os python3 -Ic cluster", "os_run", { bin: "python3", args: ["-Ic", "print(1)"] }, "refused"],
  ["os node --eval=", "os_run", { bin: "node", args: ["--eval=process.exit(0)"] }, "refused"],
  ["os find -exec", "os_run", { bin: "find", args: [".", "-exec", "id", ";"] }, "refused"],
  [
    "os git -c (outside git status)",
    "os_run",
    { bin: "git", args: ["-c", "core.pager=sh", "status"] },
    "refused",
  ],
  ["os git statusx", "os_run", { bin: "git", args: ["statusx"] }, "refused"],
  ["os not allowed", "os_run", { bin: "curl", args: ["http://example.invalid"] }, "refused"],
  ["os 300 args", "os_run", { bin: "echo", args: Array(300).fill("x") }, "refused"],
  [
    "os shell metacharacters",
    "os_run",
    { bin: "echo", args: ["$(id)", "`id`", "|", ">x"] },
    (o) => expect(o.stdout).toBe("$(id) `id` | >x\n"),
  ],
];

describe("hostile inputs", () => {
  it(`${CORPUS.length} inputs: each refused, blocked or harmless, none leaking a file from outside`, async () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(60);
    const failures: string[] = [];
    for (const [label, tool, args, expected] of CORPUS) {
      let result: Awaited<ReturnType<typeof callTool>> | undefined;
      let thrown: Error | undefined;
      try {
        result = await callTool(mcp, tool, args);
      } catch (error) {
        thrown = error as Error;
      }
      const out = (result?.structuredContent ?? {}) as Record<string, unknown>;
      const text = JSON.stringify(result?.content ?? thrown?.message ?? "");
      // A line of /etc/passwd (a run's argv names its interpreter, /usr/bin/bash, which is no leak).
      if (text.includes("root:x:0:0") || text.includes(":/bin/bash"))
        failures.push(`${label}: leaked a file`);
      const refused = "refused" in out;
      const blocked = refused || result?.isError === true || thrown !== undefined;
      if (expected === "refused" && !refused)
        failures.push(`${label}: expected a refusal, got ${text.slice(0, 160)}`);
      else if (expected === "blocked" && !blocked)
        failures.push(`${label}: expected it blocked, got ${text.slice(0, 160)}`);
      else if (typeof expected === "function") {
        try {
          if (blocked) throw new Error(`blocked: ${text.slice(0, 160)}`);
          expected(out, text);
        } catch (error) {
          failures.push(`${label}: ${(error as Error).message.slice(0, 200)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    for (const canary of ["PWNED", "PWNED2", "PWNED3", "PWNED4"])
      expect(existsSync(join(ws.dir, canary))).toBe(false);
    expect(existsSync(join(ws.dir, ".claude/skills/pdf/PWNED2"))).toBe(false);
  }, 60_000);

  it("a file swapped for a symlink out, again and again while it is read, never leaks", async () => {
    const target = join(skills(), "pdf/references/swap");
    const flipper = spawn(process.execPath, [
      "-e",
      `const fs=require("fs");const t=${JSON.stringify(target)};const end=Date.now()+1500;
       while(Date.now()<end){try{fs.rmSync(t,{force:true});fs.symlinkSync("/etc/passwd",t);fs.rmSync(t,{force:true});fs.writeFileSync(t,"safe\\n");}catch{}}`,
    ]);
    const done = new Promise((resolve) => flipper.on("close", resolve));
    const answers: string[] = [];
    for (let i = 0; i < 40; i++) {
      const result = await callTool(mcp, "skill_read", { skill: "pdf", path: "references/swap" });
      answers.push(JSON.stringify(result.structuredContent ?? result.content));
    }
    await done;
    expect(answers.filter((a) => a.includes("root:"))).toEqual([]);
    // Each read saw the file, an empty file mid-rewrite, a refusal, or no file at all.
    expect(answers.filter((a) => !/safe|refused|no file|"text":""/.test(a))).toEqual([]);
  }, 30_000);
});
