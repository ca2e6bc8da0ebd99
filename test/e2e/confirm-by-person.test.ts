import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { checkRun, gitWorkspace, nodeArgv, openAttempt } from "../helpers/goals.js";
import {
  callTool,
  connectMcp,
  type PersonAtClient,
  personAnswering,
  workspaceEachTest,
} from "../helpers/mcp.js";
import { addAgent, cairn, cairnAsync } from "../helpers/workspace.js";

/**
 * A destructive call made over MCP by a client that can ask its person (form elicitation) goes
 * ahead only on that person's yes, beside the caller's own `confirm: true`, which a model can
 * always set: through the tool, through the `cli` hatch, or through a shortcut.
 */
const { ws, open } = workspaceEachTest();

type Asked = ElicitRequest["params"];

const ALLOW: ElicitResult = { action: "accept", content: { allow: true } };
const UNTICKED: ElicitResult = { action: "accept", content: { allow: false } };
const DECLINE: ElicitResult = { action: "decline" };
const DISMISS: ElicitResult = { action: "cancel" };

async function connect(options: Parameters<typeof connectMcp>[1], dir = ws.dir) {
  const handle = await connectMcp(dir, options);
  open.push(handle);
  return handle;
}

/** A planner's server (forget and revert_attempt are planner tools), as `token`'s agent or the owner. */
const planner = (at?: PersonAtClient, token?: string, dir = ws.dir) =>
  connect(
    {
      args: ["--profile", "planner"],
      ...(at ? { person: at } : {}),
      ...(token ? { env: { CAIRN_AGENT: token } } : {}),
    },
    dir,
  );

/** A fact remembered by the owner, or by the agent whose token is given (its own to forget). */
function remembered(text: string, token?: string): string {
  const made = cairn(ws.dir, ["remember", text, "--json"], token ? { env: { CAIRN_AGENT: token } } : {});
  expect(made.code, made.stderr).toBe(0);
  return (made.json as { id: string }).id;
}

const stillRecalled = (text: string) =>
  (cairn(ws.dir, ["recall", text, "--json"]).json as { facts: { text: string }[] }).facts.some(
    (hit) => hit.text === text,
  );

const refusalOf = (result: { structuredContent?: unknown }) =>
  (result.structuredContent as { refused?: { policy: string; reason: string; next: string } }).refused;

const auditEvents = (event: string) =>
  readFileSync(join(ws.dir, ".cairn", "audit.jsonl"), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.parse(line) as { event: string; data: Record<string, unknown> })
    .filter((entry) => entry.event === event);

describe("a destructive call over MCP, where the client can ask its person", () => {
  it("needs the person's yes as well as the caller's confirm", async () => {
    const secret = "the staging password is hunter2";
    const fact = remembered(secret);

    // The caller confirms itself; the person says no: nothing is deleted.
    const declining = personAnswering(DECLINE);
    const asOwner = await planner(declining.person);
    const refused = await callTool(asOwner, "forget", { id: fact, confirm: true });
    expect(refused.isError).toBeFalsy();
    expect(refusalOf(refused)).toMatchObject({ policy: "confirm" });
    expect(refusalOf(refused)?.reason).toMatch(/did not allow `forget`/);
    expect(refusalOf(refused)?.next).toMatch(/do not retry/);
    expect(stillRecalled(secret)).toBe(true);
    // The person was told who asks, for what: the fact itself, not only its id.
    expect(declining.asked).toHaveLength(1);
    const question = declining.asked[0];
    expect(question?.message).toMatch(/owner's session asks to run `forget`, which is destructive/);
    expect(question?.message).toMatch(
      new RegExp(`${fact}, remembered by owner on \\d{4}-\\d{2}-\\d{2}: "${secret}"\\. Allow it\\?$`),
    );
    expect(question).toMatchObject({
      mode: "form",
      requestedSchema: { properties: { allow: { type: "boolean" } }, required: ["allow"] },
    });

    // An untouched box, or a dismissed form, is no yes either.
    for (const [reply, reason] of [
      [UNTICKED, /did not allow/],
      [DISMISS, /gave no answer/],
    ] as const) {
      const other = await planner(personAnswering(reply).person);
      const answer = await callTool(other, "forget", { id: fact, confirm: true });
      expect(refusalOf(answer)?.reason).toMatch(reason);
    }
    expect(stillRecalled(secret)).toBe(true);

    // The person's yes and the caller's confirm; a client declaring `elicitation: {}` (forms,
    // before elicitation had modes) is asked too. Without confirm, the person is not asked.
    const allowing = personAnswering(ALLOW, true);
    const asked = await planner(allowing.person);
    const unmeant = await callTool(asked, "forget", { id: fact });
    expect(refusalOf(unmeant)).toMatchObject({ policy: "confirm", reason: "`forget` is destructive" });
    expect(allowing.asked).toHaveLength(0);
    const forgotten = await callTool(asked, "forget", { id: fact, confirm: true });
    expect(refusalOf(forgotten)).toBeUndefined();
    expect(forgotten.structuredContent).toMatchObject({ forgotten: { id: fact } });
    expect(stillRecalled(secret)).toBe(false);
    expect(allowing.asked).toHaveLength(1);

    // Each answer is in the audit log, beside the call it answered; the question by its digest,
    // since it quoted the fact, and the log keeps every line for good.
    expect(auditEvents("person.asked").map((entry) => entry.data.answer)).toEqual([
      "no",
      "no",
      "unanswered",
      "yes",
    ]);
    expect(auditEvents("person.asked")[0]?.data.question_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(join(ws.dir, ".cairn", "audit.jsonl"), "utf8")).not.toContain("hunter2");
  });

  it("asks the same person through the cli hatch and for a destructive shortcut, showing its command line", async () => {
    writeFileSync(
      join(ws.dir, ".cairn", "cairn.toml"),
      `${readFileSync(join(ws.dir, ".cairn", "cairn.toml"), "utf8")}\n[shortcuts.wipe]\nargv = ["node", "-e", "require('fs').writeFileSync('wiped-' + process.argv[1], '')", "{{what}}"]\neffect = "destructive"\n`,
    );
    const { token } = addAgent(ws.dir, "builder-1", "builder");
    const fact = remembered("keep this one", token);
    const declining = personAnswering(DECLINE);
    const agent = await connect({ env: { CAIRN_AGENT: token }, person: declining.person });

    const viaTool = await callTool(agent, "run_shortcut", {
      name: "wipe",
      params: ["what=db"],
      confirm: true,
    });
    expect(refusalOf(viaTool)).toMatchObject({ policy: "confirm" });
    const viaHatch = await callTool(agent, "cli", {
      argv: ["shortcut", "run", "wipe", "--params", "what=logs", "--confirm"],
    });
    expect(viaHatch.structuredContent).toMatchObject({ exit_code: 3 });
    const forgetViaHatch = await callTool(agent, "cli", { argv: ["forget", fact, "--confirm"] });
    expect(forgetViaHatch.structuredContent).toMatchObject({ exit_code: 3 });
    expect(JSON.stringify(forgetViaHatch.structuredContent)).toMatch(/did not allow `forget`/);
    expect(existsSync(join(ws.dir, "wiped-db"))).toBe(false);
    expect(existsSync(join(ws.dir, "wiped-logs"))).toBe(false);
    expect(stillRecalled("keep this one")).toBe(true);
    // The person read the command line the shortcut would start, its parameter filled in.
    expect(declining.asked.map((question) => question.message)).toEqual([
      expect.stringMatching(/^Agent builder-1 \(A-\d+\) asks to run `shortcut wipe`.*writeFileSync.* db/),
      expect.stringMatching(/`shortcut wipe`.* logs/),
      expect.stringMatching(/`forget`/),
    ]);

    const allowing = await connect({ env: { CAIRN_AGENT: token }, person: personAnswering(ALLOW).person });
    const ran = await callTool(allowing, "run_shortcut", {
      name: "wipe",
      params: ["what=db"],
      confirm: true,
    });
    expect(refusalOf(ran)).toBeUndefined();
    expect(existsSync(join(ws.dir, "wiped-db"))).toBe(true);
  });

  it("shows the person a shortcut's whole command line, not progress's short one", async () => {
    writeFileSync(
      join(ws.dir, ".cairn", "cairn.toml"),
      `${readFileSync(join(ws.dir, ".cairn", "cairn.toml"), "utf8")}\n[shortcuts.clean]\nargv = ["node", "-e", "require('fs').rmSync(require('path').join('build', process.argv[1]), {recursive: true, force: true})", "{{what}}"]\neffect = "destructive"\n`,
    );
    const declining = personAnswering(DECLINE);
    const owner = await connect({ person: declining.person });
    // Past the 120 characters a progress line keeps, the value climbs out of build/.
    const climbing = `${"cache/".repeat(10)}${"../".repeat(5)}`;
    const huge = `${"cache/".repeat(500)}../`;
    for (const what of [climbing, huge]) {
      const refused = await callTool(owner, "run_shortcut", {
        name: "clean",
        params: [`what=${what}`],
        confirm: true,
      });
      expect(refusalOf(refused)).toMatchObject({ policy: "confirm" });
    }
    const [whole, cut] = declining.asked.map((question) => question.message);
    expect(whole).toContain(`{recursive: true, force: true})\\" ${climbing}"`);
    // One too long to read is cut where the person can see it is.
    expect(cut).toMatch(/cache"… \(\d+ characters\)\. Allow it\?$/);
  });

  it("refuses a yes that comes after the caller was retired", async () => {
    writeFileSync(
      join(ws.dir, ".cairn", "cairn.toml"),
      `${readFileSync(join(ws.dir, ".cairn", "cairn.toml"), "utf8")}\n[shortcuts.wipe]\nargv = ["node", "-e", "require('fs').writeFileSync('wiped', '')"]\neffect = "destructive"\n`,
    );
    /** An agent whose owner retires it while the form is open, then whose person ticks the box. */
    const retiredWhileAsked = async (name: string) => {
      const { token } = addAgent(ws.dir, name, "builder");
      const agent = await connect({
        env: { CAIRN_AGENT: token },
        person: {
          answer: async () => {
            const retired = await cairnAsync(ws.dir, ["agent", "retire", name]);
            expect(retired.code, retired.stderr).toBe(0);
            return ALLOW;
          },
        },
      });
      return { token, agent };
    };

    const forgetting = await retiredWhileAsked("builder-1");
    const made = cairn(ws.dir, ["remember", "the agent's own fact", "--json"], {
      env: { CAIRN_AGENT: forgetting.token },
    });
    const fact = (made.json as { id: string }).id;
    const forgotten = await callTool(forgetting.agent, "cli", { argv: ["forget", fact, "--confirm"] });
    expect(forgotten.structuredContent).toMatchObject({ exit_code: 3 });
    expect(JSON.stringify(forgotten.structuredContent)).toMatch(/builder-1 .*retired/);
    expect(stillRecalled("the agent's own fact")).toBe(true);

    const wiping = await retiredWhileAsked("builder-2");
    const ran = await callTool(wiping.agent, "run_shortcut", { name: "wipe", confirm: true });
    expect(refusalOf(ran)).toMatchObject({ policy: "identity" });
    expect(refusalOf(ran)?.reason).toMatch(/retired/);
    expect(existsSync(join(ws.dir, "wiped"))).toBe(false);
    // The person's yes is on record all the same, beside the refusal.
    expect(auditEvents("person.asked").map((entry) => entry.data.answer)).toEqual(["yes", "yes"]);
  });

  it("puts one question at a time, and does not ask again what the person just turned down", async () => {
    const facts = ["first to go", "second to go", "third to go"].map((text) => remembered(text));
    let inFlight = 0;
    let most = 0;
    const asked: string[] = [];
    const slowNo = {
      answer: async (request: Asked) => {
        asked.push(request.message);
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 300));
        inFlight--;
        return DECLINE;
      },
    };
    const agent = await planner(slowNo);
    // Three at once: the person sees them one after another, never stacked.
    const all = await Promise.all(facts.map((id) => callTool(agent, "forget", { id, confirm: true })));
    expect(all.map((result) => refusalOf(result)?.policy)).toEqual(["confirm", "confirm", "confirm"]);
    expect(asked).toHaveLength(3);
    expect(most).toBe(1);
    // The same call again, at once: refused without a fourth form.
    const again = await callTool(agent, "forget", { id: facts[0], confirm: true });
    expect(refusalOf(again)?.reason).toMatch(/did not allow this same `forget` a few minutes ago/);
    expect(asked).toHaveLength(3);
    for (const text of ["first to go", "second to go", "third to go"]) expect(stillRecalled(text)).toBe(true);
  });

  it("keeps the caller's claims while the person takes their time", async () => {
    writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), "[claims]\nlease_minutes = 0.05\n");
    const { token } = addAgent(ws.dir, "slow-asker", "builder");
    const task = cairn(ws.dir, ["task", "add", "held while asking", "--json"]);
    const id = (task.json as { task: { id: string } }).task.id;
    expect(cairn(ws.dir, ["task", "claim", id], { env: { CAIRN_AGENT: token } }).code).toBe(0);
    const fact = remembered("asked about for a while", token);
    // The person answers after twice the 3-second lease, and the owner sweeps meanwhile.
    const slowPerson = {
      answer: async () => {
        await new Promise((resolve) => setTimeout(resolve, 6_000));
        expect(cairn(ws.dir, ["sweep"]).code).toBe(0);
        return DECLINE;
      },
    };
    const agent = await planner(slowPerson, token);
    expect(refusalOf(await callTool(agent, "forget", { id: fact, confirm: true }))).toMatchObject({
      policy: "confirm",
    });
    const shown = cairn(ws.dir, ["task", "show", id, "--json"]).json as { task: { owner: string | null } };
    expect(shown.task.owner).toMatch(/^A-\d+$/);
  }, 30_000);

  it("shows the person which files a revert discards, and reverts nothing on their no", async () => {
    const repo = gitWorkspace({ "lib.txt": "good\n" });
    try {
      const run = checkRun(repo.dir, { argv: nodeArgv("process.exit(0)") });
      const attempt = openAttempt(repo.dir, run);
      writeFileSync(join(repo.dir, "lib.txt"), "the attempt's edit\n");
      writeFileSync(join(repo.dir, "added.txt"), "made by the attempt\n");
      const declining = personAnswering(DECLINE);
      const declined = await planner(declining.person, undefined, repo.dir);
      const refused = await callTool(declined, "revert_attempt", { attempt, confirm: true });
      expect(refusalOf(refused)).toMatchObject({ policy: "confirm" });
      expect(readFileSync(join(repo.dir, "lib.txt"), "utf8")).toBe("the attempt's edit\n");
      expect(existsSync(join(repo.dir, "added.txt"))).toBe(true);
      expect(declining.asked[0]?.message).toMatch(
        new RegExp(
          `${attempt}, opened by owner, in ".*": back to [0-9a-f]{12}, discarding 2 files: "added.txt", "lib.txt"\\. Allow it\\?$`,
        ),
      );
      const allowing = await planner(personAnswering(ALLOW).person, undefined, repo.dir);
      const reverted = await callTool(allowing, "revert_attempt", { attempt, confirm: true });
      expect(reverted.structuredContent).toMatchObject({ discarded: ["added.txt", "lib.txt"] });
      expect(readFileSync(join(repo.dir, "lib.txt"), "utf8")).toBe("good\n");
    } finally {
      for (const handle of open.splice(0)) await handle.close();
      repo.cleanup();
    }
  });

  it("does not trouble the person with a call that is refused anyway", async () => {
    const fact = remembered("read-only agents cannot forget");
    const { token } = addAgent(ws.dir, "reader", "builder", ["--grant", "ro"]);
    const watching = personAnswering(ALLOW);
    const reader = await planner(watching.person, token);
    const refused = await callTool(reader, "forget", { id: fact, confirm: true });
    expect(refusalOf(refused)).toMatchObject({ policy: "grant" });
    // Nor with one the command itself refuses: the owner's fact is not a builder's to forget,
    // and a fact that does not exist is not found.
    const { token: writer } = addAgent(ws.dir, "writer", "builder");
    const builder = await planner(watching.person, writer);
    const notTheirs = await callTool(builder, "forget", { id: fact, confirm: true });
    expect(refusalOf(notTheirs)).toMatchObject({ policy: "ownership" });
    const missing = await callTool(builder, "forget", { id: "F-999", confirm: true });
    expect(missing.isError).toBe(true);
    expect(watching.asked).toHaveLength(0);
    expect(stillRecalled("read-only agents cannot forget")).toBe(true);
  });

  it("keeps the caller's confirm where the client cannot ask anyone", async () => {
    const fact = remembered("no person here");
    const asOwner = await planner();
    expect(refusalOf(await callTool(asOwner, "forget", { id: fact }))).toMatchObject({ policy: "confirm" });
    const forgotten = await callTool(asOwner, "forget", { id: fact, confirm: true });
    expect(forgotten.structuredContent).toMatchObject({ forgotten: { id: fact } });
    expect(auditEvents("person.asked")).toHaveLength(0);
  });
});
