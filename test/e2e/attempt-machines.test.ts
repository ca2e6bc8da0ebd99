import { appendFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkRun, gitWorkspace, nodeArgv, openAttempt } from "../helpers/goals.js";
import { rawExec } from "../helpers/raw-store.js";
import { cairn, runSync } from "../helpers/workspace.js";

let ws: { dir: string; cleanup: () => void };
beforeEach(() => {
  ws = gitWorkspace();
});
afterEach(() => ws.cleanup());

/**
 * A shared store holds the attempts of every machine of a team, and their clones often sit at one
 * path. The attempt here is made another machine's the way that machine's cairn would record it.
 */
describe("an attempt opened in a checkout at the same path on another machine", () => {
  it("does not hold this machine's checkout, and is not evaluated, decided or reverted here", async () => {
    const run = checkRun(ws.dir, { argv: nodeArgv("process.exit(0)") });
    const theirs = openAttempt(ws.dir, run);
    const other = hostname() === "build-7" ? "build-8" : "build-7";
    await rawExec(ws.dir, `UPDATE goal_attempts SET checkout_host = '${other}' WHERE id = '${theirs}'`);
    // This machine's checkout has its own work, which must not be taken for the other machine's.
    appendFileSync(join(ws.dir, "README.md"), "this machine's edit\n");

    for (const args of [
      ["attempt", "eval", theirs],
      ["attempt", "decide", theirs],
      ["attempt", "revert", theirs, "--confirm"],
    ]) {
      const refused = cairn(ws.dir, [...args, "--json"]);
      expect(refused.code, `${args.join(" ")}: ${refused.stdout}${refused.stderr}`).toBe(3);
      const { refused: why } = refused.json as { refused: { policy: string; reason: string } };
      expect(why.policy).toBe("checkout");
      expect(why.reason).toContain(other);
    }
    expect(runSync("git", ["log", "--format=%s"], ws.dir)).not.toContain(`keep ${theirs}`);
    expect(runSync("git", ["status", "--porcelain"], ws.dir)).toContain("README.md");

    // This machine opens its own attempt in its own checkout, which the other one never held.
    const mine = cairn(ws.dir, ["attempt", "open", run, "--json"]);
    expect(mine.code, mine.stderr).toBe(0);
    const opened = (mine.json as { attempt: { id: string } }).attempt.id;
    expect(opened).not.toBe(theirs);
    // And one attempt per checkout still holds on this machine.
    const second = cairn(ws.dir, ["attempt", "open", run, "--json"]);
    expect(second.code).toBe(3);
    expect((second.json as { refused: { policy: string } }).refused.policy).toBe("one-attempt");
  });
});
