import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMANDS, GROUP_SUMMARIES } from "../../src/commands/registry.js";
import { INITIALIZE, rawServer } from "../helpers/mcp.js";
import { cairn, cleanEnv, REPO_ROOT, scratchDir } from "../helpers/workspace.js";

/**
 * What start-up leans on (the V8 code caches, the CLI's word → domain map) is an optimisation:
 * damaged, foreign or unwritable, it must leave a start that answers exactly as before. These
 * run a copy of the built install, so the repository's own dist/ is never touched.
 */
describe("start-up fallbacks", () => {
  const root = scratchDir("cairn-startup-");
  const install = join(root.dir, "install");
  const workspace = join(root.dir, "ws");
  const bin = join(install, "bin", "cairn.mjs");
  const dist = join(install, "dist");
  const run = (args: string[]) => {
    const result = spawnSync(process.execPath, [bin, ...args], {
      cwd: workspace,
      env: cleanEnv(),
      encoding: "utf8",
      timeout: 30_000,
      killSignal: "SIGKILL",
    });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };

  beforeAll(() => {
    mkdirSync(join(install, "bin"), { recursive: true });
    // bin/cairn.mjs only loads the launcher beside it, bin/cairn.cjs: both are run here.
    for (const file of ["cairn.mjs", "cairn.cjs"])
      cpSync(join(REPO_ROOT, "bin", file), join(install, "bin", file));
    mkdirSync(dist);
    for (const file of ["cairn.cjs", "cairn-cli.cjs", "tool-schemas.json", "cli-words.json"]) {
      cpSync(join(REPO_ROOT, "dist", file), join(dist, file));
    }
    symlinkSync(join(REPO_ROOT, "node_modules"), join(install, "node_modules"));
    mkdirSync(workspace);
    expect(cairn(workspace, ["init"]).code).toBe(0);
  });
  afterAll(() => root.cleanup());

  it("answers through a garbage code cache and a damaged word map, and records a fresh cache", () => {
    writeFileSync(join(dist, "cairn.cli.cache"), "not a code cache");
    writeFileSync(join(dist, "cli-words.json"), "{ not json");
    const status = run(["status", "--json"]);
    expect(status.stderr).toBe("");
    expect(status.code).toBe(0);
    expect(JSON.parse(status.stdout).workspace.root).toBe(workspace);
    expect(readFileSync(join(dist, "cairn.cli.cache")).length).toBeGreaterThan(1000);
    // The recorded cache is accepted: a second start answers the same.
    expect(run(["status", "--json"]).stdout).toBe(status.stdout);
  });

  it("answers from the whole table when the word map comes from another build", () => {
    writeFileSync(
      join(dist, "cli-words.json"),
      JSON.stringify({ status: ["knowledge"], task: ["no-such-domain"] }),
    );
    expect(run(["status", "--json"]).code).toBe(0);
    expect(run(["task", "list", "--json"]).code).toBe(0);
    cpSync(join(REPO_ROOT, "dist", "cli-words.json"), join(dist, "cli-words.json"));
  });

  it("starts where no cache can be read or written (its path is a folder)", async () => {
    rmSync(join(dist, "cairn.mcp.cache"), { force: true });
    mkdirSync(join(dist, "cairn.mcp.cache"));
    const server = rawServer(workspace, {}, undefined, bin);
    const init = await server.request(INITIALIZE);
    expect(init.result).toBeDefined();
    server.notify(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    const whoami = await server.request({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "whoami", arguments: { schema_version: 1 } },
    });
    expect(JSON.stringify(whoami.result)).toContain("owner");
    expect(await server.close()).toBe(0);
  });
});

describe("the CLI parser built per invocation", () => {
  const ws = scratchDir("cairn-startup-help-");
  afterAll(() => ws.cleanup());

  it("keeps root help complete, group help complete and misspellings corrected", () => {
    const help = cairn(ws.dir, ["--help"]);
    expect(help.code).toBe(0);
    const words = new Set([
      ...COMMANDS.map((c) => c.name.split(" ")[0] as string),
      ...Object.keys(GROUP_SUMMARIES),
    ]);
    for (const word of words) expect(help.stdout).toMatch(new RegExp(`^  ${word}\\b`, "m"));

    const group = cairn(ws.dir, ["task", "--help"]);
    expect(group.code).toBe(0);
    for (const command of COMMANDS.filter((c) => c.name.startsWith("task "))) {
      expect(group.stdout).toMatch(new RegExp(`^  ${command.name.split(" ")[1]}\\b`, "m"));
    }

    const typo = cairn(ws.dir, ["statsu"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("status");
    expect(cairn(ws.dir, ["--version"]).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
