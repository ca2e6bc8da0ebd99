import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, connectMcp } from "../helpers/mcp.js";
import { waitFor } from "../helpers/processes.js";
import { cairn, initWorkspace, REPO_ROOT, STORE_UNDER_TEST } from "../helpers/workspace.js";

/**
 * A start pays for every Node module it loads. node:child_process brings in the network and
 * stream modules with it (~2.5 ms, and the garbage they leave): a call that starts no process
 * must not load it. It slipped in once through a pure helper that lived beside runChild, and
 * `cairn status` went 10 ms over its budget. node:worker_threads (~3 ms) is held to the same rule
 * at a server's start: only an evaluator's pattern search needs it. The probe is Node's own list
 * of loaded modules, written by a preload when cairn exits. On a shared store the same holds for
 * Node's fetch (undici, ~12 ms), which the PostgreSQL driver loaded at every start by asking
 * whether it runs in a Cloudflare Worker; this file runs on both stores.
 */
const FETCH = "NativeModule internal/deps/undici/undici";
/**
 * What src/kernel/builtins.ts hands out on first use: a read that hashes nothing never loads them.
 * The PostgreSQL driver loads node:crypto itself, for its password exchange.
 */
const LOADED_ON_USE = [
  ...(STORE_UNDER_TEST === "sqlite" ? ["NativeModule crypto"] : []),
  "NativeModule os",
  "NativeModule fs/promises",
];

describe("what a start loads", () => {
  let ws: { dir: string; cleanup: () => void };
  let probe: string;
  /** A preload writing the files the launcher compiled as scripts (the bundle, by its path). */
  let bundleProbe: string;

  const listFile = () => join(ws.dir, "modules.json");
  /** The environment that makes cairn write its list of loaded modules, emptied beforehand. */
  const probing = () => {
    writeFileSync(listFile(), "[]");
    return { NODE_OPTIONS: `--require ${probe}`, MODULES_OUT: listFile() };
  };
  const loadedList = () => JSON.parse(readFileSync(listFile(), "utf8")) as string[];

  const modulesLoadedBy = (args: string[]) => {
    const run = cairn(ws.dir, args, { env: probing() });
    expect(run.code, run.stderr).toBe(0);
    return loadedList();
  };

  /** What neither a read nor a server's start may load. */
  function expectNothingLoadedOnUse(loaded: string[]): void {
    expect(loaded).toContain("NativeModule fs");
    expect(loaded).not.toContain("NativeModule child_process");
    expect(loaded).not.toContain("NativeModule worker_threads");
    expect(loaded).not.toContain(FETCH);
    for (const lazy of LOADED_ON_USE) expect(loaded).not.toContain(lazy);
  }

  beforeAll(() => {
    ws = initWorkspace();
    probe = join(ws.dir, "probe.cjs");
    // Only cairn's own process writes the list: a child that is node too would overwrite it.
    writeFileSync(
      probe,
      `if (process.argv[1] && process.argv[1].endsWith("cairn.cjs")) process.on("exit", () =>
         require("node:fs").writeFileSync(process.env.MODULES_OUT, JSON.stringify(process.moduleLoadList)));`,
    );
    bundleProbe = join(ws.dir, "bundle-probe.cjs");
    writeFileSync(
      bundleProbe,
      `const vm = require("node:vm"); const seen = [];
       vm.Script = class extends vm.Script { constructor(source, options) { super(source, options); seen.push(options.filename); } };
       process.on("exit", () => require("node:fs").writeFileSync(process.env.MODULES_OUT, JSON.stringify(seen)));`,
    );
    const criterion = JSON.stringify({ text: "it runs", verify: ["true"] });
    expect(cairn(ws.dir, ["task", "add", "a task", "--criteria", criterion]).code).toBe(0);
    expect(cairn(ws.dir, ["remember", "a fact about starting", "--topics", "start"]).code).toBe(0);
  });
  afterAll(() => ws.cleanup());

  it.each(["status", "whoami", "task list", "task show T-1", "task ready", "context T-1", "recall starting"])(
    "cairn %s loads no process machinery",
    (line) => {
      const loaded = modulesLoadedBy(line.split(" "));
      expectNothingLoadedOnUse(loaded);
      // A shared store is reached over a socket; node:child_process brings net in on its own.
      if (STORE_UNDER_TEST === "sqlite") expect(loaded).not.toContain("NativeModule net");
    },
  );

  it("cairn mcp answers initialize, tools/list and a call without process or worker machinery", async () => {
    const server = await connectMcp(ws.dir, { env: probing() });
    expect((await server.client.listTools()).tools.length).toBeGreaterThan(0);
    expect((await callTool(server, "whoami")).isError).toBeFalsy();
    await server.close();
    // The list is written as the server exits, which closing its input sets off.
    await waitFor(() => loadedList().length > 0, 10_000, "the server to exit");
    expectNothingLoadedOnUse(loadedList());
  });

  it("starts a CLI call from a bundle without the MCP SDK, and a server from one with it", () => {
    // A message only the SDK's server sends, when a tool's result breaks its output schema.
    const sdkOnly = "has an output schema but no structured content";
    const bundle = (name: string) => readFileSync(join(REPO_ROOT, "dist", name), "latin1");
    expect(bundle("cairn.cjs")).toContain(sdkOnly);
    expect(bundle("cairn-cli.cjs")).not.toContain(sdkOnly);
    // And the launcher picks them by face: a CLI call's list of scripts run names the CLI's.
    writeFileSync(listFile(), "[]");
    const run = cairn(ws.dir, ["status"], {
      env: { NODE_OPTIONS: `--require ${bundleProbe}`, MODULES_OUT: listFile() },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(loadedList()).toEqual([join(REPO_ROOT, "dist", "cairn-cli.cjs")]);
  });

  it("loads it for a call that runs a command: the probe sees it when it is there", () => {
    expect(cairn(ws.dir, ["task", "claim", "T-1"]).code).toBe(0);
    const loaded = modulesLoadedBy(["task", "check", "T-1", "--all"]);
    expect(loaded).toContain("NativeModule child_process");
  });
});
