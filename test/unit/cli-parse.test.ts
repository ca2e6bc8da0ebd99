import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Session } from "../../src/commands/context.js";
import { runCli } from "../../src/faces/cli/program.js";

/**
 * The CLI parser in-process, before any workspace is opened: a value the input schema rejects is
 * a usage error found before dispatch opens the store, so an empty folder serves.
 */
const dir = mkdtempSync(join(tmpdir(), "cairn-cli-parse-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const session = new Session({ cwd: dir, env: { CAIRN_HOME: join(dir, "home") } });
  const out = {
    stdout: (text: string) => {
      stdout += text;
    },
    stderr: (text: string) => {
      stderr += text;
    },
  };
  const code = await runCli(argv, session, out);
  await session.close();
  return { code, stdout, stderr };
}

describe("the CLI reads numbers as the JSON a tool call would carry", () => {
  it("refuses hex, octal, binary, padded and signed-plus notations for a number option", async () => {
    for (const value of ["0x10", "0o7", "0b1", " 5", "5 ", "+5", "1_000", ".5", "5."]) {
      const result = await run(["task", "list", "--limit", value, "--json"]);
      expect(result.code, value).toBe(2);
      expect(JSON.parse(result.stdout), value).toMatchObject({ error: { kind: "usage" } });
      expect(result.stdout, value).toContain("limit");
    }
  });
});
