import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentCatalog } from "../../src/domains/agents/catalog.js";
import { isProblem, type LoadedAgent, parseManifest } from "../../src/domains/agents/manifest.js";
import { runToolName } from "../../src/domains/agents/naming.js";
import { splitArgv } from "../../src/domains/agents/preflight.js";
import { projectWorkspace } from "../../src/domains/workspace/discover.js";
import { RACY_MS } from "../../src/kernel/stamp-cache.js";
import { scratchDir } from "../helpers/workspace.js";

const parse = (text: string) => parseManifest(text, "/agents/x/agent.toml");
const ok = (text: string) => {
  const parsed = parse(text);
  if (isProblem(parsed)) throw new Error(parsed.reason);
  return parsed as LoadedAgent;
};
const BASE = '[agent]\nname = "x"\n[run]\ncommand = "true"\n';

describe("agent.toml as users have it", () => {
  it("fills dotagent's defaults and resolves per-schedule overrides", () => {
    const agent = ok(
      `${BASE}[[schedules]]\nid = "a"\ntype = "cron"\nweekdays = [1, 5]\nhours = [7, 13]\n[[schedules]]\nid = "b"\ntype = "interval"\ninterval_minutes = 30\nmax_retries = 6\nstale_after_minutes = 15\n`,
    );
    expect(agent.manifest.agent).toMatchObject({ monitor: true, timeout_seconds: 1800 });
    expect(agent.manifest.env).toEqual({ inherit: true, extra: {} });
    expect(agent.schedules[0]).toMatchObject({
      pattern: "0 7,13 * * 1,5",
      maxRetries: 3,
      backoffMinutes: [5, 15, 30],
      staleAfterMinutes: 120,
    });
    expect(agent.schedules[1]).toMatchObject({
      kind: "interval",
      intervalMinutes: 30,
      maxRetries: 6,
      staleAfterMinutes: 15,
    });
  });

  it("keeps unknown keys and dotagent-only sections, reported rather than dropped", () => {
    const agent = ok(
      `${BASE}mystery = 1\n[[schedules]]\nid = "a"\ntype = "interval"\ninterval_minutes = 5\nmax_retry = 2\n[security]\nnetwork = "deny"\n[frobnicate]\nx = 1\n`,
    );
    expect(agent.unknownKeys).toEqual(["run.mystery", "schedules[0].max_retry", "frobnicate"]);
    expect(agent.foreignSections).toEqual(["security"]);
  });

  it("refuses out-of-range cron fields, a zero interval, duplicate ids, and bad expressions", () => {
    const cron = (fields: string) => parse(`${BASE}[[schedules]]\nid = "a"\ntype = "cron"\n${fields}\n`);
    expect(cron("weekdays = [7]\nhours = [1]")).toMatchObject({
      reason: expect.stringMatching(/weekdays run 0 \(Sunday\) to 6/),
    });
    expect(cron("weekdays = [1]\nhours = [25]")).toMatchObject({
      reason: expect.stringMatching(/hours run 0 to 23/),
    });
    expect(cron("weekdays = [1]\nhours = [1]\nminute = 60")).toMatchObject({
      reason: expect.stringMatching(/minute runs 0 to 59/),
    });
    expect(cron("hours = [1]")).toMatchObject({ reason: expect.stringMatching(/weekdays/) });
    expect(parse(`${BASE}[[schedules]]\nid = "a"\ntype = "interval"\ninterval_minutes = 0\n`)).toMatchObject({
      reason: expect.stringMatching(/at least 1/),
    });
    const expression = (text: string) =>
      parse(`${BASE}[[schedules]]\nid = "a"\ntype = "expression"\nexpression = "${text}"\n`);
    expect(isProblem(expression("*/15 9-17 * * 1-5"))).toBe(false);
    expect(isProblem(expression("@daily"))).toBe(false);
    expect(expression("* * * *")).toMatchObject({ reason: expect.stringMatching(/not a 5-field/) });
    expect(expression("0 0 0 * * *")).toMatchObject({ reason: expect.stringMatching(/not a 5-field/) });
    expect(expression("61 * * * *")).toMatchObject({ reason: expect.stringMatching(/minute/) });
    expect(expression("0 0 30 2 *")).toMatchObject({ reason: expect.stringMatching(/never fires/) });
    expect(
      parse(
        `${BASE}[[schedules]]\nid = "a"\ntype = "interval"\ninterval_minutes = 1\n[[schedules]]\nid = "a"\ntype = "interval"\ninterval_minutes = 2\n`,
      ),
    ).toMatchObject({ reason: "duplicate schedule id: a" });
    expect(parse("[agent\n")).toMatchObject({ reason: expect.stringMatching(/^not valid TOML/) });
    expect(parse('[agent]\nname = ""\n[run]\ncommand = "x"\n')).toMatchObject({
      reason: expect.stringMatching(/agent.name/),
    });
  });

  it("names tools in the MCP alphabet within 64 characters with a client's prefix", () => {
    expect(runToolName("hn.digest")).toBe("run-hn-digest");
    expect(runToolName("ops/cost-report")).toBe("run-ops-cost-report");
    expect(runToolName("../../x")).toBe("run-x");
    expect(runToolName("日本")).toMatch(/^run-agent-[0-9a-f]{6}$/);
    const long = runToolName("a".repeat(300));
    expect(`mcp__cairn__${long}`.length).toBeLessThanOrEqual(64);
    expect(long).not.toBe(runToolName(`${"a".repeat(299)}b`));
  });

  it("splits a remediation string into argv, quotes honoured, nothing interpreted", () => {
    expect(splitArgv(`vpnctl up --profile "work laptop" '' $HOME;rm`)).toEqual([
      "vpnctl",
      "up",
      "--profile",
      "work laptop",
      "",
      "$HOME;rm",
    ]);
  });

  it("discovers 500 manifests in a fixed order; the first of two colliding names wins", () => {
    const scratch = scratchDir();
    const root = join(scratch.dir, ".cairn", "agents");
    for (let i = 0; i < 500; i++) {
      mkdirSync(join(root, `a${String(i).padStart(3, "0")}`), { recursive: true });
      writeFileSync(
        join(root, `a${String(i).padStart(3, "0")}`, "agent.toml"),
        BASE.replace('"x"', `"agent.${i}"`),
      );
    }
    mkdirSync(join(root, "zz"));
    writeFileSync(join(root, "zz", "agent.toml"), BASE.replace('"x"', '"agent/0"'));
    const env = {
      HOME: scratch.dir,
      CAIRN_HOME: join(scratch.dir, "home"),
      DOTAGENT_HOME: join(scratch.dir, "dot"),
    };
    const catalog = agentCatalog(projectWorkspace(scratch.dir), env);
    expect(catalog.tools).toHaveLength(500);
    expect(catalog.tools[0]?.name).toBe("run-agent-0");
    expect(catalog.collisions).toEqual([
      {
        tool: "run-agent-0",
        kept: join(root, "a000", "agent.toml"),
        dropped: join(root, "zz", "agent.toml"),
      },
    ]);
    scratch.cleanup();
  });
});

describe("discovering agent folders", () => {
  it("follows a linked folder, and passes over a folder without a manifest, a stray file and a link to nowhere", () => {
    const scratch = scratchDir();
    try {
      const root = join(scratch.dir, ".cairn", "agents");
      const elsewhere = join(scratch.dir, "kept-elsewhere");
      mkdirSync(elsewhere, { recursive: true });
      writeFileSync(
        join(elsewhere, "agent.toml"),
        '[agent]\nname = "linked"\ndescription = "d"\n[run]\ncommand = "true"\n',
      );
      mkdirSync(join(root, "empty"), { recursive: true });
      symlinkSync(elsewhere, join(root, "linked"));
      symlinkSync(join(scratch.dir, "nowhere"), join(root, "gone"));
      writeFileSync(join(root, "notes.txt"), "not an agent\n");
      const catalog = agentCatalog(projectWorkspace(scratch.dir), {
        CAIRN_HOME: join(scratch.dir, "home"),
        DOTAGENT_HOME: join(scratch.dir, "no-dotagent"),
      });
      expect(catalog.tools.map((tool) => tool.name)).toEqual(["run-linked"]);
      expect(catalog.problems).toEqual([]);
    } finally {
      scratch.cleanup();
    }
  });
});

describe("a manifest parsed earlier in the process", () => {
  it("is read again when rewritten in place with its size and modification time put back", async () => {
    const scratch = scratchDir();
    try {
      const file = join(scratch.dir, ".cairn", "agents", "nightly", "agent.toml");
      mkdirSync(join(file, ".."), { recursive: true });
      const manifest = (command: string) =>
        `[agent]\nname = "nightly"\ndescription = "d"\n[run]\ncommand = "${command}"\n`;
      writeFileSync(file, manifest("true"));
      const commands = () =>
        agentCatalog(projectWorkspace(scratch.dir), {
          CAIRN_HOME: join(scratch.dir, "home"),
          DOTAGENT_HOME: join(scratch.dir, "no-dotagent"),
        }).tools.map((tool) => tool.agent.manifest.run.command);
      // Settled, so the parse is kept (a file changed within RACY_MS is parsed on every build).
      await new Promise((resolve) => setTimeout(resolve, RACY_MS + 100));
      expect(commands()).toEqual(["true"]);
      // The same length, the same inode, the old modification time to the nanosecond (`touch -r`;
      // Node sets times in milliseconds at best): only the change time tells.
      const times = join(scratch.dir, "times");
      execFileSync("touch", ["-r", file, times]);
      writeFileSync(file, manifest("echo"));
      execFileSync("touch", ["-r", times, file]);
      expect(commands()).toEqual(["echo"]);
    } finally {
      scratch.cleanup();
    }
  });
});

describe("a manifest that cannot be read", () => {
  it("is a problem naming the file when it is a link to nowhere, never an agent gone quiet", () => {
    const scratch = scratchDir();
    try {
      const dir = join(scratch.dir, ".cairn", "agents", "nightly");
      mkdirSync(dir, { recursive: true });
      symlinkSync(join(scratch.dir, "dotfiles", "agent.toml"), join(dir, "agent.toml"));
      const catalog = agentCatalog(projectWorkspace(scratch.dir), {
        CAIRN_HOME: join(scratch.dir, "home"),
        DOTAGENT_HOME: join(scratch.dir, "no-dotagent"),
      });
      expect(catalog.problems).toEqual([
        expect.objectContaining({ file: join(dir, "agent.toml"), reason: expect.stringContaining("ENOENT") }),
      ]);
    } finally {
      scratch.cleanup();
    }
  });
});
