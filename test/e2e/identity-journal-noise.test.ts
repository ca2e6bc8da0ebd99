import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawExec } from "../helpers/raw-store.js";
import { addAgent, cairn, initWorkspace } from "../helpers/workspace.js";

/**
 * Who minted an agent and who last set a finding's trust are read from the journal. Its subjects
 * are one namespace: a shortcut an agent names `A-2` or `N-1` journals every run under that name.
 * Such names are refused now, but a workspace from before the rule may hold one: twenty runs of it
 * must not hide the events those rules rest on.
 */
describe("rules read from the journal hold however many events share a subject", () => {
  let ws: ReturnType<typeof initWorkspace>;
  const as = (token: string) => ({ env: { CAIRN_AGENT: token } });
  const json = <T>(args: string[], token?: string) =>
    cairn(ws.dir, [...args, "--json"], token ? as(token) : {}).json as T;
  /**
   * Twenty-two events whose subject is `subject`, from a shortcut `token`'s agent added and that
   * bears its name, as one added before such names were refused does (renamed in the store).
   */
  const flood = async (subject: string, token: string) => {
    const added = cairn(
      ws.dir,
      ["shortcut", "add", subject, "--argv", "true", "--effect", "read"],
      as(token),
    );
    expect(added.code).toBe(2);
    expect(added.stderr).toContain("reads as an id");
    const legal = `flood-${subject.toLowerCase()}`;
    expect(
      cairn(ws.dir, ["shortcut", "add", legal, "--argv", "true", "--effect", "read"], as(token)).code,
    ).toBe(0);
    await rawExec(ws.dir, `UPDATE shortcuts SET name = '${subject}' WHERE name = '${legal}'`);
    for (let n = 0; n < 11; n++) expect(cairn(ws.dir, ["shortcut", "run", subject], as(token)).code).toBe(0);
  };

  beforeAll(() => {
    ws = initWorkspace();
    writeFileSync(join(ws.dir, ".cairn", "cairn.toml"), '[roles.lead]\nsummary = "leads"\n');
  });
  afterAll(() => ws.cleanup());

  it("two children one agent minted stay one author after twenty shortcut runs named after one of them", async () => {
    const root = addAgent(ws.dir, "noiseroot", "lead");
    const mint = (name: string) =>
      json<{ agent: { id: string }; token: string }>(
        ["agent", "add", name, "--role", "lead", "--parent", root.id],
        root.token,
      );
    const writer = mint("noisewriter");
    const vouch = mint("noisevouch");
    const finding = json<{ id: string }>(
      ["note", "add", "finding", "--text", "the migration is safe", "--severity", "major"],
      writer.token,
    );
    await flood(writer.agent.id, root.token);
    const confirmed = cairn(ws.dir, ["note", "trust", finding.id, "confirmed", "--json"], as(vouch.token));
    expect(confirmed.json).toMatchObject({ refused: { policy: "note" } });
  });

  it("the owner's verdict on a finding stays the owner's after twenty shortcut runs named after the note", async () => {
    const author = addAgent(ws.dir, "verdictauthor", "lead");
    const other = addAgent(ws.dir, "verdictother", "lead");
    const finding = json<{ id: string }>(
      ["note", "add", "finding", "--text", "the cache is stale", "--severity", "minor"],
      author.token,
    );
    expect(cairn(ws.dir, ["note", "trust", finding.id, "refuted"]).code).toBe(0);
    await flood(finding.id, other.token);
    const overturned = cairn(ws.dir, ["note", "trust", finding.id, "confirmed", "--json"], as(other.token));
    expect(overturned.json).toMatchObject({ refused: { policy: "note" } });
    expect(json<{ note: { trust: string } }>(["note", "show", finding.id]).note.trust).toBe("refuted");
  });

  it("a task's brief shows its own activity, not the runs of a shortcut named after it", async () => {
    const holder = addAgent(ws.dir, "briefholder", "lead");
    const id = json<{ task: { id: string } }>(["task", "add", "work with a history"]).task.id;
    expect(cairn(ws.dir, ["task", "claim", id], as(holder.token)).code).toBe(0);
    await flood(id, holder.token);
    const brief = cairn(ws.dir, ["context", id]).stdout;
    const activity = brief.slice(brief.indexOf("## Recent activity"));
    expect(activity).toContain("claim");
    expect(activity).not.toContain("shortcut.");
  });
});
