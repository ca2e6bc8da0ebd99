import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { RACY_MS } from "../../src/kernel/stamp-cache.js";
import { callTool, connectMcp, type McpHandle } from "../helpers/mcp.js";
import { skillMd, writeTree } from "../helpers/skills.js";
import { cairn, initWorkspace } from "../helpers/workspace.js";

/**
 * A running `cairn mcp` keeps what it parsed (skills, commands, configuration, published digests)
 * by file stamp. Every change below is made to files the server has already cached, settled past
 * the window in which a fresh file is always read again, and must show in the very next answer.
 */

let ws: { dir: string; cleanup: () => void };
let env: Record<string, string>;
let mcp: McpHandle;
const skills = () => join(ws.dir, ".claude", "skills");
const homeSkills = () => join(env.HOME as string, ".claude", "skills");

const structured = (result: Awaited<ReturnType<typeof callTool>>) =>
  result.structuredContent as Record<string, unknown>;
const toolsByName = async () =>
  new Map((await mcp.client.listTools()).tools.map((tool) => [tool.name, tool.description ?? ""]));

/** A whole second, so a modification time can be put back exactly (utimes rounds fractions). */
const PINNED = 1_700_000_000;
const pin = (path: string) => utimesSync(path, PINNED, PINNED);

/** Rewrite a pinned file with content of the same size and put its modification time back. */
function rewriteSameStamp(path: string, content: string): void {
  const before = statSync(path);
  expect(before.mtimeMs).toBe(PINNED * 1000);
  expect(Buffer.byteLength(content)).toBe(before.size);
  writeFileSync(path, content);
  pin(path);
  expect(statSync(path).mtimeMs).toBe(before.mtimeMs);
}

beforeAll(async () => {
  ws = initWorkspace();
  env = { HOME: join(ws.dir, "home"), CAIRN_HOME: join(ws.dir, "cairn-home") };
  mkdirSync(env.CAIRN_HOME as string, { recursive: true });
  writeTree(skills(), {
    "alpha/SKILL.md": skillMd({ name: "alpha", description: "Alpha version one" }, "alpha body one\n"),
    "alpha/references/REF.md": "reference one\n",
    "beta/SKILL.md": skillMd({ name: "beta", description: "Beta skill" }, "beta body\n"),
    "gone/SKILL.md": skillMd({ name: "gone", description: "A skill about to be deleted" }, "gone\n"),
    "inner/SKILL.md": skillMd({ name: "inner", description: "Inner file description" }, "inner\n"),
  });
  writeTree(join(ws.dir, "targets"), {
    "one/SKILL.md": skillMd({ name: "linked", description: "Linked target one" }, "one\n"),
    "two/SKILL.md": skillMd({ name: "linked", description: "Linked target two" }, "two\n"),
    "outside.md": skillMd({ description: "Outside the skill folder" }, "secret\n"),
  });
  symlinkSync(join(ws.dir, "targets", "one"), join(skills(), "linked"));
  writeTree(homeSkills(), {
    "dup/SKILL.md": skillMd({ name: "dup", description: "Home copy of dup" }, "home\n"),
  });
  writeTree(join(ws.dir, ".claude", "commands"), {
    "greet.md": "---\ndescription: Greet\n---\nHello one $ARGUMENTS\n",
  });
  writeFileSync(
    join(env.CAIRN_HOME as string, "cairn.toml"),
    '[os]\nenabled = true\nallow = ["true", "echo"]\n',
  );
  for (const path of [
    join(skills(), "alpha", "SKILL.md"),
    join(skills(), "alpha", "references", "REF.md"),
    join(ws.dir, ".claude", "commands", "greet.md"),
    join(env.CAIRN_HOME as string, "cairn.toml"),
  ])
    pin(path);
  // Let every file settle, so what the server reads first is kept by stamp.
  await new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));
  mcp = await connectMcp(ws.dir, { env });
  // Fill the caches.
  await mcp.client.listTools();
  await callTool(mcp, "command_get", { name: "greet", args: "x" });
  await callTool(mcp, "os_run", { bin: "echo", args: ["warm"] });
});
afterAll(async () => {
  await mcp.close();
  ws.cleanup();
});

describe("caches of a running cairn mcp see every change", () => {
  it("a FIFO in place of a SKILL.md or a command file stalls nothing: dropped or skipped", async () => {
    mkdirSync(join(skills(), "piped"));
    execFileSync("mkfifo", [
      join(skills(), "piped", "SKILL.md"),
      join(ws.dir, ".claude", "commands", "pipe.md"),
    ]);
    try {
      const tools = await toolsByName();
      expect(tools.has("skill-alpha")).toBe(true);
      expect(tools.has("skill-piped")).toBe(false);
      const listed = structured(await callTool(mcp, "skill_list", {}));
      expect(JSON.stringify(listed.dropped)).toMatch(/piped.*not a regular file/);
      const commands = structured(await callTool(mcp, "command_list", {}));
      expect(JSON.stringify(commands)).toContain("greet");
      expect(JSON.stringify(commands)).not.toContain("pipe");
    } finally {
      rmSync(join(skills(), "piped"), { recursive: true });
      rmSync(join(ws.dir, ".claude", "commands", "pipe.md"));
    }
  });

  it("an edit of the same size with the modification time put back", async () => {
    expect((await toolsByName()).get("skill-alpha")).toContain("Alpha version one");
    rewriteSameStamp(
      join(skills(), "alpha", "SKILL.md"),
      skillMd({ name: "alpha", description: "Alpha version two" }, "alpha body two\n"),
    );
    expect((await toolsByName()).get("skill-alpha")).toContain("Alpha version two");
    expect(structured(await callTool(mcp, "skill-alpha")).body).toBe("alpha body two\n");
    rewriteSameStamp(
      join(ws.dir, ".claude", "commands", "greet.md"),
      "---\ndescription: Greet\n---\nHello two $ARGUMENTS\n",
    );
    expect(structured(await callTool(mcp, "command_get", { name: "greet", args: "x" })).text).toBe(
      "Hello two x\n",
    );
  });

  it("a published digest follows a file's new bytes", async () => {
    const raw = mcp.client as unknown as {
      request(req: { method: string; params?: unknown }, schema: unknown): Promise<Record<string, unknown>>;
    };
    const digestOf = async () => {
      const got = await raw.request(
        { method: "skills/get", params: { uri: "skill://alpha/SKILL.md" } },
        z.looseObject({}),
      );
      const resources = (got.skill as { resources: { uri: string; digest: string }[] }).resources;
      return resources.find((r) => r.uri === "skill://alpha/references/REF.md")?.digest;
    };
    const sha = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;
    expect(await digestOf()).toBe(sha("reference one\n"));
    rewriteSameStamp(join(skills(), "alpha", "references", "REF.md"), "reference two\n");
    expect(await digestOf()).toBe(sha("reference two\n"));
  });

  it("a renamed and a deleted skill folder", async () => {
    renameSync(join(skills(), "beta"), join(skills(), "gamma"));
    rmSync(join(skills(), "gone"), { recursive: true });
    const tools = await toolsByName();
    expect(tools.has("skill-beta")).toBe(false);
    expect(tools.get("skill-gamma")).toContain("Beta skill");
    expect(tools.has("skill-gone")).toBe(false);
    const missing = await callTool(mcp, "skill_get", { name: "gone" });
    expect(missing.isError).toBe(true);
  });

  it("a skill folder link swapped to another target, and a SKILL.md swapped for a link out", async () => {
    expect((await toolsByName()).get("skill-linked")).toContain("Linked target one");
    symlinkSync(join(ws.dir, "targets", "two"), join(skills(), ".linked-new"));
    renameSync(join(skills(), ".linked-new"), join(skills(), "linked"));
    expect((await toolsByName()).get("skill-linked")).toContain("Linked target two");
    // The SKILL.md inside `inner` becomes a link to a file outside its folder: dropped, not read.
    rmSync(join(skills(), "inner", "SKILL.md"));
    symlinkSync(join(ws.dir, "targets", "outside.md"), join(skills(), "inner", "SKILL.md"));
    const tools = await toolsByName();
    expect(tools.has("skill-inner")).toBe(false);
    expect([...tools.values()].join("\n")).not.toContain("Outside the skill folder");
    const listed = structured(await callTool(mcp, "skill_list"));
    expect(listed.dropped).toEqual(
      expect.arrayContaining([expect.objectContaining({ dir: join(skills(), "inner") })]),
    );
  });

  it("a project skill added under a name the user's folder already serves is shadowed by it, reported", async () => {
    expect((await toolsByName()).get("skill-dup")).toContain("Home copy of dup");
    writeTree(skills(), {
      "dup/SKILL.md": skillMd({ name: "dup", description: "Project copy of dup" }, "p\n"),
    });
    // The project's files are anyone's to write: the user's own skill keeps its name.
    expect((await toolsByName()).get("skill-dup")).toContain("Home copy of dup");
    const listed = structured(await callTool(mcp, "skill_list"));
    expect(listed.shadowed).toEqual([
      expect.objectContaining({
        name: "dup",
        dir: join(skills(), "dup"),
        by: expect.objectContaining({ dir: join(homeSkills(), "dup"), origin: "~/.claude/skills" }),
      }),
    ]);
  });

  it("a new process trusts the machine's cache only for files unchanged since it was written", async () => {
    const description = () =>
      (
        cairn(ws.dir, ["skill", "list", "--json"], { env }).json as {
          skills: { name: string; description: string }[];
        }
      ).skills.find((s) => s.name === "alpha")?.description;
    // The running server wrote the cache; this process reads it, then the file changes unseen.
    expect(description()).toBe("Alpha version two");
    expect(existsSync(join(env.CAIRN_HOME as string, "cache", "skills.json"))).toBe(true);
    rewriteSameStamp(
      join(skills(), "alpha", "SKILL.md"),
      skillMd({ name: "alpha", description: "Alpha version six" }, "alpha body six\n"),
    );
    expect(description()).toBe("Alpha version six");
  });

  it("the machine's [os] allowlist narrowed: the next run is refused", async () => {
    const toml = join(env.CAIRN_HOME as string, "cairn.toml");
    rewriteSameStamp(toml, '[os]\nenabled = true\nallow = ["true", "ecko"]\n');
    const refused = structured(await callTool(mcp, "os_run", { bin: "echo", args: ["again"] }));
    expect(refused.refused).toMatchObject({ policy: "os" });
  });
});
