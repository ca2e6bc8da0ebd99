import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  cairnJson,
  contractWith,
  evaluatorToml,
  freezeRun,
  gitWorkspace,
  openAttempt,
  writePack,
} from "../helpers/goals.js";
import { addAgent, cairn, scratchDir } from "../helpers/workspace.js";

/**
 * The programs a check runs are looked up on PATH, and a builder chooses the PATH of the cairn it
 * runs. A PATH with an empty entry (a trailing `:`, `PATH=$PATH:$UNSET`) or a relative one (`.`)
 * looks bare names up in the working folder, which is the workspace a builder writes; and a folder
 * of the builder's own put first on PATH is looked up before the installed program. In both, a
 * planted `fixture-check` that passes stood in for the installed one that fails.
 */
let ws: { dir: string; cleanup: () => void };
let installed: { dir: string; cleanup: () => void };
/** The caller's PATH: the workspace first (an empty entry), then the installed program. */
let callerPath: string;

function script(path: string, body: string): void {
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
}

beforeEach(() => {
  ws = gitWorkspace();
  installed = scratchDir("cairn-installed-");
  mkdirSync(join(installed.dir, "bin"));
  // The real check: the work is not done.
  script(join(installed.dir, "bin", "fixture-check"), "echo 'real check: failing'; exit 1");
  callerPath = ["", join(installed.dir, "bin"), process.env.PATH].join(delimiter);
});
afterEach(() => {
  ws.cleanup();
  installed.cleanup();
});

const plant = (folder = ws.dir) => script(join(folder, "fixture-check"), "echo 'planted: passing'; exit 0");

type Evaluated = { samples: { value: number | null; output_tail: string; error: string | null }[] };

describe.skipIf(process.platform === "win32")("a relative folder on the caller's PATH", () => {
  it("never lets a program planted in the checkout stand in for an evaluator's", () => {
    const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    writePack(ws.dir, "fixture", evaluatorToml({ name: "fixture", proof: "check", argv: ["fixture-check"] }));
    const builder = { CAIRN_AGENT: addAgent(ws.dir, "bob", "builder").token };
    const attempt = openAttempt(ws.dir, freezeRun(ws.dir, goal), builder);
    plant();
    const evaluated = cairnJson<Evaluated>(ws.dir, ["attempt", "eval", attempt], {
      ...builder,
      PATH: callerPath,
    });
    expect(evaluated.samples[0]?.output_tail).toContain("real check: failing");
    expect(evaluated.samples[0]?.value).toBe(0);
    const decided = cairnJson<{ verdict: string }>(ws.dir, ["attempt", "decide", attempt], builder);
    expect(decided.verdict).toBe("revert");
  });

  it("never lets a program planted in the workspace pass a task's verify command", () => {
    const agent = { CAIRN_AGENT: addAgent(ws.dir, "bob", "builder").token };
    const criterion = JSON.stringify({ text: "the check passes", verify: ["fixture-check"] });
    expect(cairn(ws.dir, ["task", "add", "t", "--criteria", criterion]).code).toBe(0);
    expect(cairn(ws.dir, ["task", "claim", "T-1"], { env: agent }).code).toBe(0);
    plant();
    const checked = cairn(ws.dir, ["task", "check", "T-1", "--all", "--json"], {
      env: { ...agent, PATH: callerPath },
    });
    expect(checked.code).not.toBe(0);
    expect(`${checked.stdout}${checked.stderr}`).toContain("real check: failing");
    const shown = cairnJson<{ criteria: { checked: boolean }[] }>(ws.dir, ["task", "show", "T-1"]);
    expect(shown.criteria[0]?.checked).toBe(false);
  });
});

describe.skipIf(process.platform === "win32")("a folder put first on PATH after the freeze", () => {
  const installedPath = () => [join(installed.dir, "bin"), process.env.PATH].join(delimiter);

  /** A run of `fixture-check` frozen by the owner, whose PATH finds the installed program. */
  function frozenAttempt(builder: { CAIRN_AGENT: string }): { run: string; attempt: string } {
    const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    writePack(ws.dir, "fixture", evaluatorToml({ name: "fixture", proof: "check", argv: ["fixture-check"] }));
    const run = cairnJson<{
      run: { id: string; evaluators: { path: string[] | null; home: string | null }[] };
    }>(ws.dir, ["run", "freeze", goal], { PATH: installedPath() }).run;
    expect(run.evaluators[0]?.path?.[0]).toBe(join(installed.dir, "bin"));
    expect(run.evaluators[0]?.home).toBe(process.env.HOME ?? null);
    return { run: run.id, attempt: openAttempt(ws.dir, run.id, builder) };
  }

  it("runs the evaluator's program from the folders frozen with the run, not the builder's", () => {
    const builder = { CAIRN_AGENT: addAgent(ws.dir, "bob", "builder").token };
    const { attempt } = frozenAttempt(builder);
    const fake = scratchDir("cairn-fake-");
    try {
      plant(fake.dir);
      const evaluated = cairnJson<Evaluated>(ws.dir, ["attempt", "eval", attempt], {
        ...builder,
        PATH: [fake.dir, installedPath()].join(delimiter),
      });
      expect(evaluated.samples[0]?.output_tail).toContain("real check: failing");
      const decided = cairnJson<{ verdict: string }>(ws.dir, ["attempt", "decide", attempt], builder);
      expect(decided.verdict).toBe("revert");
    } finally {
      fake.cleanup();
    }
  });

  it("still finds a program the frozen folders do not hold on the caller's PATH", () => {
    const builder = { CAIRN_AGENT: addAgent(ws.dir, "bob", "builder").token };
    const { attempt } = frozenAttempt(builder);
    // The run moved to a machine where the program lives elsewhere: the frozen folder lacks it.
    const elsewhere = scratchDir("cairn-elsewhere-");
    try {
      script(join(elsewhere.dir, "fixture-check"), "echo 'installed elsewhere: passing'; exit 0");
      rmSync(join(installed.dir, "bin", "fixture-check"));
      const evaluated = cairnJson<Evaluated>(ws.dir, ["attempt", "eval", attempt], {
        ...builder,
        PATH: [elsewhere.dir, process.env.PATH].join(delimiter),
      });
      expect(evaluated.samples[0]).toMatchObject({ value: 1, error: null });
      expect(evaluated.samples[0]?.output_tail).toContain("installed elsewhere: passing");
    } finally {
      elsewhere.cleanup();
    }
  });
});

describe.skipIf(process.platform === "win32")(
  "a folder put first on PATH after a task's check was set",
  () => {
    const installedPath = () => [join(installed.dir, "bin"), process.env.PATH].join(delimiter);

    it("runs a criterion's verify command from the folders of whoever added it, not the checker's", () => {
      const agent = { CAIRN_AGENT: addAgent(ws.dir, "bob", "builder").token };
      const criterion = JSON.stringify({ text: "the check passes", verify: ["fixture-check"] });
      const added = cairn(ws.dir, ["task", "add", "t", "--criteria", criterion], {
        env: { PATH: installedPath() },
      });
      expect(added.code).toBe(0);
      expect(cairn(ws.dir, ["task", "claim", "T-1"], { env: agent }).code).toBe(0);
      const fake = scratchDir("cairn-fake-");
      try {
        plant(fake.dir);
        const checked = cairn(ws.dir, ["task", "check", "T-1", "--all", "--json"], {
          env: { ...agent, PATH: [fake.dir, installedPath()].join(delimiter) },
        });
        expect(checked.code).not.toBe(0);
        expect(`${checked.stdout}${checked.stderr}`).toContain("real check: failing");
        const shown = cairnJson<{ criteria: { checked: boolean }[] }>(ws.dir, ["task", "show", "T-1"]);
        expect(shown.criteria[0]?.checked).toBe(false);
      } finally {
        fake.cleanup();
      }
    });

    it("runs the definition of done from the folders of the owner who initialised the workspace", () => {
      const owned = scratchDir("cairn-owned-");
      const fake = scratchDir("cairn-fake-");
      try {
        expect(cairn(owned.dir, ["init"], { env: { PATH: installedPath() } }).code).toBe(0);
        writeFileSync(
          join(owned.dir, ".cairn", "cairn.toml"),
          '[done]\nshortcuts = ["gate"]\n[shortcuts.gate]\nargv = ["fixture-check"]\neffect = "read"\n',
        );
        const agent = { CAIRN_AGENT: addAgent(owned.dir, "bob", "builder").token };
        expect(cairn(owned.dir, ["task", "add", "t", "--criteria", "one"]).code).toBe(0);
        expect(cairn(owned.dir, ["task", "claim", "T-1"], { env: agent }).code).toBe(0);
        expect(cairn(owned.dir, ["task", "check", "T-1", "--n", "1"], { env: agent }).code).toBe(0);
        plant(fake.dir);
        const finished = cairn(owned.dir, ["task", "finish", "T-1"], {
          env: { ...agent, PATH: [fake.dir, installedPath()].join(delimiter) },
        });
        expect(finished.code).toBe(3);
        expect(finished.stderr).toContain("definition of done: shortcut gate failed");
        expect(finished.stderr).toContain("real check: failing");
      } finally {
        owned.cleanup();
        fake.cleanup();
      }
    });
  },
);
