import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveHttp } from "../helpers/http-mcp.js";
import { cleanEnv, initWorkspace, REPO_ROOT, scratchDir } from "../helpers/workspace.js";

const CONFORMANCE = join(
  REPO_ROOT,
  "node_modules",
  "@modelcontextprotocol",
  "conformance",
  "dist",
  "index.js",
);
const SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "resources-list",
  "prompts-list",
  "logging-set-level",
  "completion-complete",
];

/** Run one scenario of the official suite against `url`; its exit code and what it printed. */
function scenario(url: string, name: string, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        "--import",
        join(REPO_ROOT, "test", "helpers", "conformance-node20", "register.mjs"),
        CONFORMANCE,
        "server",
        "--url",
        url,
        "--scenario",
        name,
      ],
      {
        cwd,
        env: cleanEnv(),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

describe("the official MCP conformance suite", () => {
  const workspace = initWorkspace();
  const results = scratchDir("cairn-conformance-");
  let server: Awaited<ReturnType<typeof serveHttp>>;

  beforeAll(async () => {
    server = await serveHttp(workspace.dir);
  });
  afterAll(async () => {
    await server.close();
    workspace.cleanup();
    results.cleanup();
  });

  it("passes every scenario cairn serves, against the same server cairn mcp runs", async () => {
    const runs = await Promise.all(SCENARIOS.map((name) => scenario(server.url, name, results.dir)));
    const failed = runs
      .map((run, index) => ({ name: SCENARIOS[index], ...run }))
      .filter((run) => run.code !== 0 || !/Passed: (\d+)\/\1, 0 failed/.test(run.output));
    expect(failed.map((run) => `${run.name}: ${run.output}`)).toEqual([]);
  });
});
