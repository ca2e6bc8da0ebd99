import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  cairnJson,
  checkRun,
  contractWith,
  evalInBackground,
  evaluatorToml,
  freezeRun,
  gitWorkspace,
  nodeArgv,
  openAttempt,
  writePack,
} from "../helpers/goals.js";
import { pidFrom, processGone, waitFor } from "../helpers/processes.js";
import { addAgent, cairn, runSync, scratchDir } from "../helpers/workspace.js";

/**
 * What a frozen evaluator reaches beyond the files its argv names: the package runner's own
 * configuration, the config files a test runner reads, the modules its script imports. A builder
 * that changes one of them changes what is measured, so each is a frozen input.
 */
let ws: { dir: string; cleanup: () => void };
let builder: { CAIRN_AGENT: string };
beforeEach(() => {
  ws = gitWorkspace({
    "lib.txt": "good\n",
    "package.json": `${JSON.stringify({ name: "fixture", version: "1.0.0", scripts: { test: "node check.js" } })}\n`,
    "check.js": "process.exit(require('fs').readFileSync('lib.txt','utf8').trim()==='good'?0:1)\n",
  });
  builder = { CAIRN_AGENT: addAgent(ws.dir, "bob", "builder").token };
});
afterEach(() => ws.cleanup());

interface Decision {
  verdict: "keep" | "revert" | "review";
  reasons: string[];
}

/** The builder's attempt on a frozen run whose `check` proof is measured by check.js. */
function attemptOnCheck(proofs: Parameters<typeof contractWith>[1]): string {
  const goal = contractWith(ws.dir, proofs);
  writePack(
    ws.dir,
    "fixture",
    evaluatorToml({ name: "fixture-check", proof: "check", argv: [process.execPath, "check.js"] }),
  );
  return openAttempt(ws.dir, freezeRun(ws.dir, goal), builder);
}

const commit = (message: string) => {
  runSync("git", ["add", "-A"], ws.dir);
  runSync("git", ["commit", "-qm", message], ws.dir);
};

describe("the package runner's configuration", () => {
  it("never keeps an attempt that passes `npm test` by writing an .npmrc (node-options, script-shell)", () => {
    const run = checkRun(ws.dir, { argv: ["npm", "test", "--silent"] });
    const inputs = cairnJson<{ run: { evaluators: { inputs: string[] }[] } }>(ws.dir, ["run", "status", run])
      .run.evaluators[0]?.inputs;
    expect(inputs).toEqual(expect.arrayContaining([".npmrc", "check.js", "package.json"]));

    for (const npmrc of ["node-options=--require ./cheat.cjs\n", "script-shell=/bin/true\n"]) {
      const attempt = openAttempt(ws.dir, run, builder);
      writeFileSync(join(ws.dir, "lib.txt"), "broken\n");
      writeFileSync(join(ws.dir, "cheat.cjs"), "const exit=process.exit;process.exit=()=>exit(0);\n");
      writeFileSync(join(ws.dir, ".npmrc"), npmrc);
      const evaluated = cairnJson<{ input_drift: string[]; samples: { value: number }[] }>(
        ws.dir,
        ["attempt", "eval", attempt],
        builder,
      );
      // The trick works: npm reads the project's .npmrc and the broken tree measures as passing.
      expect(evaluated.samples[0]?.value).toBe(1);
      expect(evaluated.input_drift).toEqual([".npmrc"]);
      const decided = cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder);
      expect(decided.verdict).toBe("revert");
      expect(decided.reasons.join("\n")).toMatch(/\.npmrc/);
      cairnJson(ws.dir, ["attempt", "revert", attempt, "--confirm"], builder);
    }
  });
});

describe("the environment an evaluation is run with", () => {
  it("never passes `npm test` through a variable of the builder's (NODE_OPTIONS, npm_config_script_shell, HOME)", () => {
    const run = checkRun(ws.dir, { argv: ["npm", "test", "--silent"] });
    // Outside the checkout: no frozen input, no changed path names it.
    const outside = scratchDir("cairn-cheat-");
    const cheat = join(outside.dir, "cheat.cjs");
    writeFileSync(cheat, "const exit=process.exit;process.exit=()=>exit(0);\n");
    // A home of the builder's own, whose user configuration npm reads (~/.npmrc).
    writeFileSync(join(outside.dir, ".npmrc"), "script-shell=/bin/true\n");
    try {
      for (const variables of [
        { NODE_OPTIONS: `--require ${cheat}` },
        { npm_config_script_shell: "/bin/true" },
        { HOME: outside.dir },
      ]) {
        const attempt = openAttempt(ws.dir, run, builder);
        writeFileSync(join(ws.dir, "lib.txt"), "broken\n");
        const evaluated = cairnJson<{ samples: { value: number }[] }>(ws.dir, ["attempt", "eval", attempt], {
          ...builder,
          ...variables,
        });
        expect(evaluated.samples[0]?.value).toBe(0);
        expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder).verdict).toBe("revert");
        cairnJson(ws.dir, ["attempt", "revert", attempt, "--confirm"], builder);
      }
    } finally {
      outside.cleanup();
    }
  });
});

describe("the environment an evaluation is run with, beyond npm", () => {
  it("never passes an evaluator through a shell function, git's configuration or make's variables of the builder's", () => {
    writeFileSync(join(ws.dir, "Makefile"), "test:\n\tnode check.js\n");
    commit("make");
    const outside = scratchDir("cairn-cheat-");
    mkdirSync(join(outside.dir, "git"));
    writeFileSync(join(outside.dir, "git", "config"), "[cheat]\n\tok = yes\n");
    const cheats: [string[], Record<string, string>][] = [
      [["bash", "-c", "node check.js"], { "BASH_FUNC_node%%": "() { exit 0; }" }],
      [["git", "config", "--get", "cheat.ok"], { XDG_CONFIG_HOME: outside.dir }],
      [["make", "-s", "test"], { MAKEFLAGS: "SHELL=/bin/true" }],
    ];
    try {
      for (const [argv, variables] of cheats) {
        const attempt = openAttempt(ws.dir, checkRun(ws.dir, { argv }), builder);
        writeFileSync(join(ws.dir, "lib.txt"), "broken\n");
        const evaluated = cairnJson<{ samples: { value: number }[] }>(ws.dir, ["attempt", "eval", attempt], {
          ...builder,
          ...variables,
        });
        expect(evaluated.samples[0]?.value, JSON.stringify(variables)).toBe(0);
        expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder).verdict).toBe("revert");
        cairnJson(ws.dir, ["attempt", "revert", attempt, "--confirm"], builder);
      }
    } finally {
      outside.cleanup();
    }
  });
});

describe("an input folder git shows as one entry, or names whole", () => {
  it("never keeps an attempt that adds a plugin in a nested repository, or edits a file of a folder input", () => {
    // run.js loads every plugin below checks/, as a test runner loads every file its glob finds.
    writeFileSync(
      join(ws.dir, "run.js"),
      [
        "const fs = require('fs'), path = require('path');",
        "const state = { ok: fs.readFileSync('lib.txt', 'utf8').trim() === 'good' };",
        "const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) =>",
        "  e.name === '.git' ? [] : e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]);",
        "for (const file of walk('checks')) require(path.resolve(file))(state);",
        "process.exit(state.ok ? 0 : 1);",
      ].join("\n"),
    );
    mkdirSync(join(ws.dir, "checks"));
    writeFileSync(join(ws.dir, "checks", "base.js"), "module.exports = () => {};\n");
    commit("plugins");
    const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    const pass = "module.exports = (state) => { state.ok = true; };\n";
    for (const inputs of [["checks/**/*.js"], ["checks"]]) {
      writePack(
        ws.dir,
        "fixture",
        evaluatorToml({ name: "fixture-check", proof: "check", argv: [process.execPath, "run.js"], inputs }),
      );
      const attempt = openAttempt(ws.dir, freezeRun(ws.dir, goal), builder);
      writeFileSync(join(ws.dir, "lib.txt"), "broken\n");
      if (inputs[0] === "checks") writeFileSync(join(ws.dir, "checks", "base.js"), pass);
      else {
        mkdirSync(join(ws.dir, "checks", "zz"));
        runSync("git", ["init", "-q"], join(ws.dir, "checks", "zz"));
        writeFileSync(join(ws.dir, "checks", "zz", "pass.js"), pass);
      }
      const evaluated = cairnJson<{ input_drift: string[]; samples: { value: number }[] }>(
        ws.dir,
        ["attempt", "eval", attempt],
        builder,
      );
      expect(evaluated.samples[0]?.value).toBe(1);
      expect(evaluated.input_drift).toEqual([inputs[0] === "checks" ? "checks" : "checks/zz/pass.js"]);
      expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder).verdict).toBe("revert");
      // The nested repository was the attempt's own and holds no commit: revert takes it whole.
      cairnJson(ws.dir, ["attempt", "revert", attempt, "--confirm"], builder);
      expect(existsSync(join(ws.dir, "checks", "zz"))).toBe(false);
    }
  });
});

describe("the configuration a shipped pack's tool reads", () => {
  it("freezes the test runner's and the type checker's config files with the node pack", () => {
    writeFileSync(join(ws.dir, "tsconfig.json"), '{"compilerOptions":{"strict":true}}\n');
    writeFileSync(join(ws.dir, "vitest.config.ts"), "export default { test: { include: ['test/**'] } };\n");
    mkdirSync(join(ws.dir, "test"));
    writeFileSync(join(ws.dir, "test", "a.test.ts"), "// a test\n");
    commit("a typed project");
    const goal = contractWith(ws.dir, [
      { name: "tests", threshold: 1 },
      { name: "typecheck", threshold: 1 },
    ]);
    const run = freezeRun(ws.dir, goal);
    const evaluators = cairnJson<{ run: { evaluators: { name: string; inputs: string[] }[] } }>(ws.dir, [
      "run",
      "status",
      run,
    ]).run.evaluators;
    const inputsOf = (name: string) => evaluators.find((e) => e.name === name)?.inputs ?? [];
    expect(inputsOf("node-tests")).toEqual(
      expect.arrayContaining([
        ".npmrc",
        "package.json",
        "test/a.test.ts",
        "tsconfig.json",
        "vitest.config.ts",
      ]),
    );
    expect(inputsOf("node-typecheck")).toEqual(expect.arrayContaining(["tsconfig.json"]));

    // Excluding the failing tests in the runner's config is changing what judges the attempt.
    const attempt = openAttempt(ws.dir, run, builder);
    writeFileSync(
      join(ws.dir, "vitest.config.ts"),
      "export default { test: { include: ['nothing/**'], passWithNoTests: true } };\n",
    );
    writeFileSync(join(ws.dir, "tsconfig.json"), '{"compilerOptions":{"strict":false}}\n');
    cairnJson(ws.dir, ["attempt", "eval", attempt], builder);
    const decided = cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder);
    expect(decided.verdict).toBe("revert");
    expect(decided.reasons.join("\n")).toMatch(
      /tsconfig\.json.*vitest\.config\.ts|vitest\.config\.ts.*tsconfig\.json/s,
    );
  });
});

describe("the modules a frozen script loads", () => {
  it("never keeps an attempt that edits a helper the evaluator's script requires, imports or sources", () => {
    mkdirSync(join(ws.dir, "checks", "lib"), { recursive: true });
    writeFileSync(
      join(ws.dir, "checks", "run.js"),
      "const ok = require('./lib/verdict');\nprocess.exit(ok() ? 0 : 1);\n",
    );
    writeFileSync(
      join(ws.dir, "checks", "lib", "verdict.js"),
      "const { read } = require('../read.cjs');\nmodule.exports = () => read() === 'good';\n",
    );
    writeFileSync(
      join(ws.dir, "checks", "read.cjs"),
      "exports.read = () => require('fs').readFileSync('lib.txt', 'utf8').trim();\n",
    );
    writeFileSync(
      join(ws.dir, "checks", "run.mjs"),
      "import { ok } from './esm-helper.mjs';\nprocess.exit(ok() ? 0 : 1);\n",
    );
    writeFileSync(
      join(ws.dir, "checks", "esm-helper.mjs"),
      "import { readFileSync } from 'node:fs';\nexport const ok = () => readFileSync('lib.txt', 'utf8').trim() === 'good';\n",
    );
    writeFileSync(join(ws.dir, "checks", "run.sh"), '. "$(dirname "$0")/common.sh"\ncheck_lib\n');
    writeFileSync(join(ws.dir, "checks", "common.sh"), 'check_lib() { [ "$(cat lib.txt)" = good ]; }\n');
    commit("checks with helpers");
    const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    writePack(
      ws.dir,
      "fixture",
      evaluatorToml({ name: "cjs-check", proof: "check", argv: [process.execPath, "checks/run.js"] }) +
        evaluatorToml({ name: "esm-check", proof: "check", argv: [process.execPath, "checks/run.mjs"] }) +
        evaluatorToml({ name: "sh-check", proof: "check", argv: ["sh", "checks/run.sh"] }),
    );
    const run = freezeRun(ws.dir, goal);
    const evaluators = cairnJson<{ run: { evaluators: { name: string; inputs: string[] }[] } }>(ws.dir, [
      "run",
      "status",
      run,
    ]).run.evaluators;
    expect(Object.fromEntries(evaluators.map((e) => [e.name, e.inputs]))).toEqual({
      "cjs-check": ["checks/lib/verdict.js", "checks/read.cjs", "checks/run.js"],
      "esm-check": ["checks/esm-helper.mjs", "checks/run.mjs"],
      "sh-check": ["checks/common.sh", "checks/run.sh"],
    });

    const attempt = openAttempt(ws.dir, run, builder);
    writeFileSync(join(ws.dir, "lib.txt"), "broken\n");
    writeFileSync(join(ws.dir, "checks", "read.cjs"), "exports.read = () => 'good';\n");
    writeFileSync(join(ws.dir, "checks", "esm-helper.mjs"), "export const ok = () => true;\n");
    writeFileSync(join(ws.dir, "checks", "common.sh"), "check_lib() { true; }\n");
    const evaluated = cairnJson<{ input_drift: string[]; samples: { value: number }[] }>(
      ws.dir,
      ["attempt", "eval", attempt],
      builder,
    );
    expect(evaluated.samples.map((s) => s.value)).toEqual([1, 1, 1]);
    expect(evaluated.input_drift).toEqual(["checks/common.sh", "checks/esm-helper.mjs", "checks/read.cjs"]);
    expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder).verdict).toBe("revert");
  });
});

describe("a base that cannot be measured", () => {
  it("does not keep a regression whose base the builder made fail through the dependencies it shares", () => {
    writeFileSync(join(ws.dir, ".gitignore"), "node_modules/\n");
    writeFileSync(join(ws.dir, "score.txt"), "90\n");
    writeFileSync(
      join(ws.dir, "bench.js"),
      "require('bench-kit');\nconsole.log('score ' + require('fs').readFileSync('score.txt', 'utf8').trim());\n",
    );
    commit("a benchmark");
    mkdirSync(join(ws.dir, "node_modules", "bench-kit"), { recursive: true });
    writeFileSync(join(ws.dir, "node_modules", "bench-kit", "index.js"), "module.exports = {};\n");
    const goal = contractWith(ws.dir, [{ name: "quality", threshold: 50 }]);
    writePack(
      ws.dir,
      "fixture",
      evaluatorToml({
        name: "fixture-quality",
        proof: "quality",
        argv: [process.execPath, "bench.js"],
        read: "regex",
        pattern: "score (\\d+)",
        direction: "higher",
        threshold: 50,
      }),
    );
    const run = freezeRun(ws.dir, goal);

    // Measured against its base, the drop from 90 to 60 is a regression.
    const honest = openAttempt(ws.dir, run, builder);
    writeFileSync(join(ws.dir, "score.txt"), "60\n");
    cairnJson(ws.dir, ["attempt", "eval", honest], builder);
    expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", honest], builder).verdict).toBe("revert");
    cairnJson(ws.dir, ["attempt", "revert", honest, "--confirm"], builder);

    // The same drop, with the shared (ignored) dependency failing only in the base's worktree.
    const attempt = openAttempt(ws.dir, run, builder);
    writeFileSync(join(ws.dir, "score.txt"), "60\n");
    writeFileSync(
      join(ws.dir, "node_modules", "bench-kit", "index.js"),
      "if (process.cwd().includes('cairn-base-')) process.exit(3);\nmodule.exports = {};\n",
    );
    cairnJson(ws.dir, ["attempt", "eval", attempt], builder);
    const decided = cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder);
    expect(decided.verdict).not.toBe("keep");
    expect(decided.reasons.join("\n")).toMatch(/base could not be measured/);
    expect(runSync("git", ["log", "--format=%s"], ws.dir)).not.toMatch(/cairn: keep/);
  });

  it("does not keep a regression whose code under test rewrote the base's checkout to look worse", () => {
    writeFileSync(join(ws.dir, "lib.js"), "console.log('score 90');\n");
    commit("the library");
    const goal = contractWith(ws.dir, [{ name: "quality", threshold: 50 }]);
    writePack(
      ws.dir,
      "fixture",
      evaluatorToml({
        name: "fixture-quality",
        proof: "quality",
        argv: nodeArgv("require('./lib.js')"),
        read: "regex",
        pattern: "score (\\d+)",
        direction: "higher",
        threshold: 50,
        noisy: true,
      }),
    );
    const run = freezeRun(ws.dir, goal);

    // Measured against its base, the drop from 90 to 60 is a regression.
    const honest = openAttempt(ws.dir, run, builder);
    writeFileSync(join(ws.dir, "lib.js"), "console.log('score 60');\n");
    cairnJson(ws.dir, ["attempt", "eval", honest], builder);
    expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", honest], builder).verdict).toBe("revert");
    cairnJson(ws.dir, ["attempt", "revert", honest, "--confirm"], builder);

    // The same drop, from code that finds the base's worktree and rewrites it to score 40.
    const attempt = openAttempt(ws.dir, run, builder);
    writeFileSync(
      join(ws.dir, "lib.js"),
      [
        "const listed = require('child_process').execFileSync('git', ['worktree', 'list', '--porcelain'], { encoding: 'utf8' });",
        "for (const line of listed.split('\\n'))",
        "  if (line.startsWith('worktree ') && line.includes('cairn-base-'))",
        "    require('fs').writeFileSync(line.slice(9) + '/lib.js', \"console.log('score 40');\\n\");",
        "console.log('score 60');",
        "",
      ].join("\n"),
    );
    cairnJson(ws.dir, ["attempt", "eval", attempt], builder);
    const decided = cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder);
    expect(decided.verdict).not.toBe("keep");
    expect(decided.reasons.join("\n")).toMatch(/base's checkout was changed/);
    expect(runSync("git", ["log", "--format=%s"], ws.dir)).not.toMatch(/cairn: keep/);
  });

  it("does not keep a regression whose builder makes the base worse for each of its samples and puts it back before it ends", async () => {
    const signals = scratchDir("cairn-base-swap-");
    try {
      writeFileSync(join(ws.dir, "score.txt"), "90\n");
      commit("the score");
      const goal = contractWith(ws.dir, [{ name: "quality", threshold: 50 }]);
      // On the base, each sample waits for the builder's edit before it reads, and for the file
      // put back before it prints: the builder's process wins its race every time.
      const wait = (name: string) => `while [ ! -e ${signals.dir}/${name}.$n ]; do sleep 0.02; done`;
      const script = [
        `case "$PWD" in *cairn-base-*) n=$(ls ${signals.dir} | grep -c started); touch ${signals.dir}/started.$n;`,
        `${wait("swapped")}; v=$(cat score.txt); touch ${signals.dir}/read.$n; ${wait("restored")};`,
        `echo "score $v";; *) echo "score $(cat score.txt)";; esac`,
      ].join(" ");
      writePack(
        ws.dir,
        "fixture",
        evaluatorToml({
          name: "fixture-quality",
          proof: "quality",
          argv: ["sh", "-c", script],
          read: "regex",
          pattern: "score (\\d+)",
          direction: "higher",
          threshold: 50,
          noisy: true,
        }),
      );
      const attempt = openAttempt(ws.dir, freezeRun(ws.dir, goal), builder);
      // A drop from 90 to 60: a regression against the base.
      writeFileSync(join(ws.dir, "score.txt"), "60\n");
      const { exited: closed } = evalInBackground(ws.dir, attempt, builder);
      let exited = false;
      void closed.then(() => {
        exited = true;
      });
      const baseFile = () => {
        const listed = runSync("git", ["worktree", "list", "--porcelain"], ws.dir);
        const line = listed.split("\n").find((entry) => entry.includes("cairn-base-")) as string;
        return join(line.slice("worktree ".length), "score.txt");
      };
      for (let n = 0; ; n++) {
        await waitFor(() => exited || existsSync(join(signals.dir, `started.${n}`)), 30_000, "a base sample");
        if (exited) break;
        writeFileSync(baseFile(), "40\n");
        writeFileSync(join(signals.dir, `swapped.${n}`), "");
        await waitFor(() => existsSync(join(signals.dir, `read.${n}`)), 15_000, "the base's read");
        writeFileSync(baseFile(), "90\n");
        writeFileSync(join(signals.dir, `restored.${n}`), "");
      }
      expect(await closed).toBe(0);
      const decided = cairn(ws.dir, ["attempt", "decide", attempt, "--json"], { env: builder });
      expect(decided.stdout).not.toMatch(/"verdict": "keep"/);
      expect(decided.stdout).toMatch(/base's checkout was changed/);
      expect(runSync("git", ["log", "--format=%s"], ws.dir)).not.toMatch(/cairn: keep/);
    } finally {
      signals.cleanup();
    }
  });
});

describe("a hidden holdout in a decision", () => {
  it("names neither the holdout nor its number to the builder: touched inputs, reasons, proof scores", () => {
    mkdirSync(join(ws.dir, "holdout"));
    writeFileSync(join(ws.dir, "holdout", "secret-quality.js"), "console.log('q ' + 7)\n");
    commit("holdout");
    const goal = contractWith(ws.dir, [{ name: "quality", threshold: 10 }]);
    writePack(
      ws.dir,
      "fixture",
      evaluatorToml({
        name: "holdout-quality",
        proof: "quality",
        hidden: true,
        argv: [process.execPath, "holdout/secret-quality.js"],
        read: "regex",
        pattern: "q (\\d+)",
        threshold: 10,
      }),
    );
    const run = freezeRun(ws.dir, goal);
    const attempt = openAttempt(ws.dir, run, builder);
    writeFileSync(join(ws.dir, "holdout", "secret-quality.js"), "console.log('q ' + 8)\n");
    cairnJson(ws.dir, ["attempt", "eval", attempt], builder);
    const decided = cairnJson<
      Decision & { touched_inputs: { evaluators: string[] }[]; proofs: { score: number }[] }
    >(ws.dir, ["attempt", "decide", attempt], builder);
    expect(decided.verdict).toBe("revert");
    const seen = JSON.stringify(decided);
    expect(seen).not.toContain("holdout-quality");
    expect(decided.touched_inputs).toEqual([{ path: "holdout/secret-quality.js", evaluators: ["(hidden)"] }]);
    // 8 of 10 would read 0.8: a hidden proof's score is pass or fail only.
    expect(decided.proofs[0]?.score).toBe(0);
    const shown = cairnJson<{ decision: unknown }>(ws.dir, ["attempt", "show", attempt], builder);
    expect(JSON.stringify(shown)).not.toMatch(/holdout-quality|\b0\.8\b/);
    const review = cairn(ws.dir, ["review", "--json"], { env: builder });
    expect(review.stdout).not.toContain("holdout-quality");
    // The owner sees it all.
    const owner = cairnJson<{
      decision: { touched_inputs: { evaluators: string[] }[]; proofs: { score: number }[] };
    }>(ws.dir, ["attempt", "show", attempt]);
    expect(owner.decision.touched_inputs[0]?.evaluators).toEqual(["holdout-quality"]);
    expect(owner.decision.proofs[0]?.score).toBe(0.8);
  });
});

describe("revert when a folder became a symlink, or a file a folder", () => {
  it("puts both back without following the link or failing half way", () => {
    mkdirSync(join(ws.dir, "dir"));
    writeFileSync(join(ws.dir, "dir", "a.txt"), "tracked\n");
    writeFileSync(join(ws.dir, "plain"), "a file\n");
    commit("a folder and a file");
    const outside = scratchDir("cairn-outside-");
    try {
      writeFileSync(join(outside.dir, "a.txt"), "precious\n");
      const attempt = attemptOnCheck([{ name: "check", threshold: 1 }]);
      writeFileSync(join(ws.dir, "lib.txt"), "broken\n");
      rmSync(join(ws.dir, "dir"), { recursive: true });
      symlinkSync(outside.dir, join(ws.dir, "dir"));
      rmSync(join(ws.dir, "plain"));
      mkdirSync(join(ws.dir, "plain"));
      writeFileSync(join(ws.dir, "plain", "inside.txt"), "new\n");
      cairnJson(ws.dir, ["attempt", "eval", attempt], builder);
      expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder).verdict).toBe("revert");
      const reverted = cairn(ws.dir, ["attempt", "revert", attempt, "--confirm", "--json"], { env: builder });
      expect(reverted.stderr).toBe("");
      expect(reverted.code).toBe(0);
      expect(lstatSync(join(ws.dir, "dir")).isDirectory()).toBe(true);
      expect(readFileSync(join(ws.dir, "dir", "a.txt"), "utf8")).toBe("tracked\n");
      expect(readFileSync(join(ws.dir, "plain"), "utf8")).toBe("a file\n");
      expect(readFileSync(join(ws.dir, "lib.txt"), "utf8")).toBe("good\n");
      expect(readFileSync(join(outside.dir, "a.txt"), "utf8")).toBe("precious\n");
      expect(runSync("git", ["status", "--porcelain", "--", ".", ":(exclude).cairn"], ws.dir)).toBe("");
    } finally {
      outside.cleanup();
    }
  });
});

describe.skipIf(process.platform !== "linux")("stopping cairn during an evaluation", () => {
  it("leaves no process behind, setsid ones included, and no base worktree", async () => {
    const scratch = scratchDir("cairn-stop-");
    const pidFile = join(scratch.dir, "escaped.pid");
    const escaped: number[] = [];
    try {
      const goal = contractWith(ws.dir, [{ name: "speed", threshold: 100 }]);
      const line = `setsid sh -c 'echo $$ > "${pidFile}"; exec sleep 120' </dev/null >/dev/null 2>&1 & sleep 60; echo "took 5 ms"`;
      writePack(
        ws.dir,
        "fixture",
        evaluatorToml({
          name: "fixture-speed",
          proof: "speed",
          argv: ["sh", "-c", line],
          read: "regex",
          pattern: "took (\\d+) ms",
          direction: "lower",
          threshold: 100,
          noisy: true,
        }),
      );
      const run = freezeRun(ws.dir, goal);
      const attempt = openAttempt(ws.dir, run, builder);
      const { child, exited } = evalInBackground(ws.dir, attempt, builder);
      const pid = await pidFrom(pidFile);
      escaped.push(pid);
      // The base is measured first, in a worktree of its own: it exists now.
      expect(runSync("git", ["worktree", "list"], ws.dir).trim().split("\n")).toHaveLength(2);
      child.kill("SIGTERM");
      expect(await exited).toBe(143);
      await waitFor(() => processGone(pid), 5_000, `escaped pid ${pid} to be killed`);
      runSync("git", ["worktree", "prune"], ws.dir);
      expect(runSync("git", ["worktree", "list"], ws.dir).trim().split("\n")).toHaveLength(1);
    } finally {
      for (const pid of escaped) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone, as it should be
        }
      }
      scratch.cleanup();
    }
  });
});

describe("a self-report after the owner's judgment", () => {
  it("does not overrule the owner: a manual proof the owner failed stays failed", () => {
    const attempt = attemptOnCheck([
      { name: "check", threshold: 1 },
      { name: "design", manual: true, threshold: 1 },
    ]);
    cairnJson(ws.dir, ["attempt", "eval", attempt], builder);
    cairnJson(ws.dir, ["attempt", "report", attempt, "--scores", '{"design":0}']);
    cairnJson(ws.dir, ["attempt", "report", attempt, "--scores", '{"design":1}'], builder);
    const decided = cairnJson<Decision & { proofs: { name: string; source: string; score: number }[] }>(
      ws.dir,
      ["attempt", "decide", attempt],
      builder,
    );
    expect(decided.proofs.find((p) => p.name === "design")).toMatchObject({
      source: "owner_judgment",
      score: 0,
    });
    expect(decided.verdict).toBe("revert");
  });
});

describe("a module `python -m` finds in the workspace first", () => {
  it("keeps a sound attempt measured by pytest: the bytecode python would cache in a frozen test folder is not written", () => {
    const goal = contractWith(ws.dir, [{ name: "tests", threshold: 1 }]);
    mkdirSync(join(ws.dir, "tests"));
    writeFileSync(join(ws.dir, "app.py"), "def add(a, b):\n    return a + b\n");
    writeFileSync(join(ws.dir, "tests", "helper.py"), "EXPECTED = 4\n");
    writeFileSync(
      join(ws.dir, "tests", "test_app.py"),
      "import sys, os\nsys.path.insert(0, os.getcwd())\nfrom app import add\nfrom helper import EXPECTED\n\ndef test_add():\n    assert add(2, 2) == EXPECTED\n",
    );
    writeFileSync(join(ws.dir, ".gitignore"), "__pycache__/\n.pytest_cache/\n");
    commit("python tests");
    writePack(
      ws.dir,
      "fixture",
      evaluatorToml({
        name: "fixture-pytest",
        proof: "tests",
        argv: ["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        inputs: ["tests/**"],
      }),
    );
    const attempt = openAttempt(ws.dir, freezeRun(ws.dir, goal), builder);
    writeFileSync(join(ws.dir, "app.py"), "def add(a, b):\n    return b + a\n");
    // Whatever the caller's environment says about bytecode.
    const evaluated = cairnJson<{ input_drift: string[]; samples: { value: number }[] }>(
      ws.dir,
      ["attempt", "eval", attempt],
      { ...builder, PYTHONDONTWRITEBYTECODE: undefined },
    );
    expect(evaluated.samples[0]?.value).toBe(1);
    expect(evaluated.input_drift).toEqual([]);
    expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder).verdict).toBe("keep");
  });

  it("never keeps an attempt that shadows the module an evaluator runs (a pytest.py of its own)", () => {
    const goal = contractWith(ws.dir, [{ name: "check", threshold: 1 }]);
    // compileall stands for pytest: a module that runs from the interpreter's library.
    writePack(
      ws.dir,
      "fixture",
      evaluatorToml({
        name: "fixture-check",
        proof: "check",
        argv: ["python3", "-m", "compileall", "-q", "src"],
      }),
    );
    mkdirSync(join(ws.dir, "src"));
    writeFileSync(join(ws.dir, "src", "app.py"), "x = 1\n");
    commit("python");
    const run = freezeRun(ws.dir, goal);
    const inputs = cairnJson<{ run: { evaluators: { inputs: string[] }[] } }>(ws.dir, ["run", "status", run])
      .run.evaluators[0]?.inputs;
    expect(inputs).toEqual(["compileall.py", "compileall/__init__.py", "compileall/__main__.py"]);
    for (const shadow of [["compileall.py"], ["compileall/__init__.py", "compileall/__main__.py"]]) {
      const attempt = openAttempt(ws.dir, run, builder);
      writeFileSync(join(ws.dir, "src", "app.py"), "def broken(:\n");
      mkdirSync(join(ws.dir, "compileall"), { recursive: true });
      for (const file of shadow) writeFileSync(join(ws.dir, file), "raise SystemExit(0)\n");
      const evaluated = cairnJson<{ input_drift: string[]; samples: { value: number }[] }>(
        ws.dir,
        ["attempt", "eval", attempt],
        builder,
      );
      // The shadow works: the broken source measures as passing.
      expect(evaluated.samples[0]?.value).toBe(1);
      expect(evaluated.input_drift).toEqual(shadow);
      expect(cairnJson<Decision>(ws.dir, ["attempt", "decide", attempt], builder).verdict).toBe("revert");
      cairnJson(ws.dir, ["attempt", "revert", attempt, "--confirm"], builder);
      rmSync(join(ws.dir, "compileall"), { recursive: true, force: true });
    }
  });
});
