import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enableIdentities, writeAgent } from "../helpers/agents.js";
import { rawExec } from "../helpers/raw-store.js";
import { addAgent, CAIRN_BIN, cairn, initWorkspace } from "../helpers/workspace.js";

/**
 * A local agent run acting as a cairn identity gets a token minted for it, retired when the run
 * ends. What the run mints with that token acts for the run too, and must end with it.
 */
describe("children a run's identity mints end with the run", () => {
  let ws: ReturnType<typeof initWorkspace>;
  let env: Record<string, string>;

  beforeAll(() => {
    ws = initWorkspace();
    env = { DOTAGENT_HOME: join(ws.dir, "no-dotagent") };
  });
  afterAll(() => ws.cleanup());

  const json = <T>(args: string[]) => cairn(ws.dir, [...args, "--json"], { env }).json as T;
  const taskOf = (id: string) =>
    json<{ task: { status: string; owner: string | null } }>(["task", "show", id]).task;

  it("a child minted by the run is retired at its end and gives back what it held, blocked tasks too", () => {
    addAgent(ws.dir, "minter", "builder");
    const held = json<{ task: { id: string } }>(["task", "add", "held blocked by the run's child"]).task.id;
    const active = json<{ task: { id: string } }>(["task", "add", "held active by the run's child"]).task.id;
    // The run mints a child of its own identity and has it claim both tasks, one then blocked.
    const script = join(ws.dir, "mint-child.cjs");
    writeFileSync(
      script,
      `const { execFileSync } = require("node:child_process");
const cairn = (args, token) => JSON.parse(execFileSync(process.execPath, [${JSON.stringify(CAIRN_BIN)}, ...args, "--json"], {
  encoding: "utf8", env: token ? { ...process.env, CAIRN_AGENT: token } : process.env,
}));
const me = cairn(["whoami"]).id;
const { token } = cairn(["agent", "add", "runkid", "--role", "builder", "--parent", me]);
cairn(["task", "claim", ${JSON.stringify(held)}], token);
cairn(["task", "block", ${JSON.stringify(held)}, "--reason", "waiting"], token);
cairn(["task", "claim", ${JSON.stringify(active)}], token);
console.log("minted and claimed");
`,
    );
    writeAgent(
      ws.dir,
      "minting",
      [
        "[agent]",
        'name = "minting"',
        "[run]",
        `command = ${JSON.stringify(process.execPath)}`,
        `args = [${JSON.stringify(script)}]`,
        "[cairn]",
        'identity = "minter"',
        "",
      ].join("\n"),
    );
    const run = cairn(ws.dir, ["agents", "run", "minting", "--json"], {
      env: { ...env, ...enableIdentities(ws.dir, ["minting"], env) },
    });
    expect(run.code, run.stderr).toBe(0);
    expect((run.json as { stdout: string }).stdout).toContain("minted and claimed");

    const agents = json<{ agents: { name: string; retired_at: string | null }[] }>([
      "agent",
      "list",
      "--all",
    ]);
    expect(agents.agents.find((a) => a.name === "runkid")?.retired_at).not.toBeNull();
    expect(taskOf(held)).toMatchObject({ status: "open", owner: null });
    expect(taskOf(active)).toMatchObject({ status: "open", owner: null });
  });

  it("cairn sweep gives back what an agent held once an ancestor is retired, though its own row was left active", async () => {
    const parent = addAgent(ws.dir, "oldparent", "builder");
    const child = addAgent(ws.dir, "oldchild", "builder", ["--parent", parent.id]);
    const id = json<{ task: { id: string } }>(["task", "add", "held below a retired parent"]).task.id;
    const as = { env: { ...env, CAIRN_AGENT: child.token } };
    expect(cairn(ws.dir, ["task", "claim", id], as).code).toBe(0);
    expect(cairn(ws.dir, ["task", "block", id, "--reason", "waiting"], as).code).toBe(0);
    // A run's identity retired without its children, as an older cairn left it.
    await rawExec(
      ws.dir,
      `UPDATE agents SET retired_at = '2026-01-01T00:00:00.000Z' WHERE id = '${parent.id}'`,
    );
    expect(cairn(ws.dir, ["whoami"], as).code).toBe(3);
    const swept = cairn(ws.dir, ["sweep", "--json"], { env });
    expect(swept.stdout).toContain(id);
    expect(taskOf(id)).toMatchObject({ status: "open", owner: null });
    // Retiring the line again reaches the child below the retired agent.
    const retired = json<{ descendants: { id: string }[] }>(["agent", "retire", parent.id]);
    expect(retired.descendants.map((d) => d.id)).toEqual([child.id]);
  });
});
