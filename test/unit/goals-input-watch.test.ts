import { linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { watchFrozenInputs } from "../../src/domains/goals/input-watch.js";
import type { FrozenEvaluatorRecord } from "../../src/store/store.js";
import { scratchDir } from "../helpers/workspace.js";

let top: { dir: string; cleanup: () => void };
beforeEach(() => {
  top = scratchDir();
  mkdirSync(join(top.dir, "tests", "unit"), { recursive: true });
  writeFileSync(join(top.dir, "tests", "unit", "a.test.js"), "a\n");
  writeFileSync(join(top.dir, "tests", "b.test.js"), "b\n");
});
afterEach(() => top.cleanup());

/** A manifest of one evaluator whose frozen inputs are `files`. */
const manifestOf = (files: Record<string, string>) =>
  [
    { name: "e", inputs: { patterns: Object.keys(files), files, modes: true } },
  ] as unknown as FrozenEvaluatorRecord[];

const frozen = manifestOf({
  "tests/unit/a.test.js": "h1",
  "tests/b.test.js": "h2",
  "pytest.py": "absent",
  "shadow/__init__.py": "absent",
});

describe("watching frozen inputs while evaluators run", () => {
  it("reports nothing for reads, and for files beside the inputs that are not inputs", async () => {
    const watching = watchFrozenInputs(frozen, top.dir);
    readFileSync(join(top.dir, "tests", "unit", "a.test.js"));
    mkdirSync(join(top.dir, "tests", "__pycache__"));
    writeFileSync(join(top.dir, "tests", "__pycache__", "b.pyc"), "x");
    writeFileSync(join(top.dir, "notes.txt"), "x");
    expect(await watching.stop()).toEqual([]);
  });

  it("reports a file written and put back, one created where an absent input was named, and one in a folder on its way", async () => {
    const watching = watchFrozenInputs(frozen, top.dir);
    const file = join(top.dir, "tests", "b.test.js");
    writeFileSync(file, "pass\n");
    writeFileSync(file, "b\n");
    writeFileSync(join(top.dir, "pytest.py"), "import sys; sys.exit(0)\n");
    rmSync(join(top.dir, "pytest.py"));
    mkdirSync(join(top.dir, "shadow"));
    expect(await watching.stop()).toEqual(["pytest.py", "shadow/__init__.py", "tests/b.test.js"]);
  });

  it("reports a file written and put back through a hard link made before the watch began", async () => {
    linkSync(join(top.dir, "tests", "b.test.js"), join(top.dir, "elsewhere"));
    const watching = watchFrozenInputs(frozen, top.dir);
    writeFileSync(join(top.dir, "elsewhere"), "pass\n");
    writeFileSync(join(top.dir, "elsewhere"), "b\n");
    expect(readFileSync(join(top.dir, "tests", "b.test.js"), "utf8")).toBe("b\n");
    expect(await watching.stop()).toEqual(["tests/b.test.js"]);
  });

  it("reports every input under a folder that was moved aside and back", async () => {
    const watching = watchFrozenInputs(frozen, top.dir);
    renameSync(join(top.dir, "tests", "unit"), join(top.dir, "tests", "unit-real"));
    renameSync(join(top.dir, "tests", "unit-real"), join(top.dir, "tests", "unit"));
    expect(await watching.stop()).toEqual(["tests/unit/a.test.js"]);
  });

  it("watches nothing outside a checkout, and stops cleanly", async () => {
    expect(await watchFrozenInputs(frozen, null).stop()).toEqual([]);
  });
});
