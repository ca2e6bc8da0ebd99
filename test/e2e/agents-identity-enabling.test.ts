import { spawn, spawnSync } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { delimiter, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { enableIdentities, writeAgent } from "../helpers/agents.js";
import { callTool, connectMcp } from "../helpers/mcp.js";
import { addAgent, CAIRN_BIN, cairn, cairnAsync, initWorkspace } from "../helpers/workspace.js";

interface Run {
  status: string;
  reason: string | null;
}
interface Row {
  agent: string;
  state: string;
}

/**
 * A project's `.cairn/agents/` is any writer's to fill. A manifest planted there naming an
 * identity of wider rights must not have the owner's daemon (or the owner's `agents run`) mint
 * that identity's child: the machine's operator enables each project manifest's identity at the
 * digest of the folder they reviewed.
 */
describe("a project manifest's [cairn] identity", () => {
  let ws: ReturnType<typeof initWorkspace>;
  let env: Record<string, string>;
  let worker: string;
  const whoamiFile = () => join(ws.dir, "whoami.json");
  // The manifest a worker plants: run on a schedule, as opsbot, printing who it acted as.
  const planted = (extra = "") =>
    [
      "[agent]",
      'name = "planted"',
      "[run]",
      `command = ${JSON.stringify(process.execPath)}`,
      `args = ["-e", ${JSON.stringify(`const r = require("child_process").spawnSync(process.execPath, [${JSON.stringify(CAIRN_BIN)}, "whoami", "--json"], { encoding: "utf8" }); require("fs").writeFileSync(${JSON.stringify(whoamiFile())}, r.stdout); process.stdout.write(r.stdout); console.log("CWD=" + process.cwd() + " HOME=" + process.env.AGENT_HOME)`)}]`,
      "[[schedules]]",
      'id = "hourly"',
      'type = "interval"',
      "interval_minutes = 60",
      "[defaults]",
      "max_retries = 1",
      "[cairn]",
      'identity = "opsbot"',
      extra,
      "",
    ].join("\n");
  const runs = (machine: Record<string, string> = {}) =>
    (
      cairn(ws.dir, ["agents", "inspect", "planted", "--json"], { env: { ...env, ...machine } }).json as {
        last_runs: Run[];
      }
    ).last_runs;
  const minted = () =>
    (
      cairn(ws.dir, ["agent", "list", "--all", "--json"], { env }).json as { agents: { name: string }[] }
    ).agents
      .map((agent) => agent.name)
      .filter((name) => name.startsWith("opsbot-run-"));

  /** A project agent acting as opsbot, its folder holding `files`, enabled on a machine of the test's own. */
  const enabledAgent = (name: string, command: string, args: string[], files: Record<string, string>) => {
    const folder = join(ws.dir, ".cairn", "agents", name);
    writeAgent(
      ws.dir,
      name,
      `[agent]\nname = "${name}"\n[run]\ncommand = "${command}"\nargs = ${JSON.stringify(args)}\n[cairn]\nidentity = "opsbot"\n`,
    );
    for (const [file, text] of Object.entries(files)) writeFileSync(join(folder, file), text);
    return { folder, machine: enableIdentities(ws.dir, [name], env) };
  };

  beforeEach(() => {
    ws = initWorkspace();
    env = { DOTAGENT_HOME: join(ws.dir, "no-dotagent") };
    appendFileSync(join(ws.dir, ".cairn", "cairn.toml"), '\n[roles.ops]\nprofile = "operator"\n');
    addAgent(ws.dir, "opsbot", "ops");
    worker = addAgent(ws.dir, "worker", "builder").token;
  });
  afterEach(() => ws.cleanup());

  it("planted by a worker, is neither run by the owner's daemon nor by the owner's hand, and doctor says why", async () => {
    writeAgent(ws.dir, "planted", planted());
    const once = cairn(ws.dir, ["daemon", "--once", "--json"], { env });
    expect(once.code, once.stderr).toBe(0);
    expect(once.json).toMatchObject({ dispatched: [{ agent: "planted" }] });
    expect(runs()[0]).toMatchObject({
      status: "skipped",
      reason: expect.stringMatching(/does not enable the project's agent planted to act as "opsbot"/),
    });
    expect(minted()).toEqual([]);
    expect(() => readFileSync(whoamiFile())).toThrow();
    const status = cairn(ws.dir, ["agents", "status", "--json"], { env }).json as { schedules: Row[] };
    expect(status.schedules.find((row) => row.agent === "planted")?.state).toBe("failing");

    const byHand = cairn(ws.dir, ["agents", "run", "planted", "--json"], { env });
    expect(byHand.code, byHand.stdout).toBe(3);
    expect(byHand.json).toMatchObject({
      refused: { policy: "identity", next: expect.stringContaining("cairn agents digest planted") },
    });
    // Asked by the worker itself, through the owner's cli as its own: refused the same (and its
    // own line never held opsbot).
    const asWorker = cairn(ws.dir, ["agents", "run", "planted", "--json"], {
      env: { ...env, CAIRN_AGENT: worker },
    });
    expect(asWorker.code).toBe(3);
    expect(minted()).toEqual([]);

    // Over MCP, the owner's session asking through the `cli` tool: the same refusal, nothing minted.
    const mcp = await connectMcp(ws.dir, { env, args: ["--profile", "all"] });
    try {
      const viaMcp = await callTool(mcp, "cli", { argv: ["agents", "run", "planted"] });
      expect(viaMcp.isError).toBeFalsy();
      expect(viaMcp.structuredContent).toMatchObject({ output: { refused: { policy: "identity" } } });
    } finally {
      await mcp.close();
    }
    expect(minted()).toEqual([]);

    const doctor = cairn(ws.dir, ["agents", "doctor", "--json"], { env });
    // Errors found: the command fails, so a script's `cairn agents doctor || …` sees them.
    expect(doctor.code).toBe(1);
    expect(doctor.json).toMatchObject({
      ok: false,
      findings: expect.arrayContaining([
        expect.objectContaining({
          agent: "planted",
          level: "error",
          message: expect.stringMatching(/does not enable.*cairn agents digest planted/),
        }),
      ]),
    });
  });

  it("enabled by the operator at its digest, acts as its identity; any change to its folder needs enabling again", () => {
    const folder = join(ws.dir, ".cairn", "agents", "planted");
    writeAgent(ws.dir, "planted", planted());
    const digest = cairn(ws.dir, ["agents", "digest", "planted"], { env });
    expect(digest.code).toBe(0);
    expect(digest.stdout).toMatch(/add under \[agents\.identities\] in CAIRN_HOME\/cairn\.toml/);
    const machine = enableIdentities(ws.dir, ["planted"], env);
    expect(
      cairn(ws.dir, ["agents", "digest", "planted", "--json"], { env: { ...env, ...machine } }).json,
    ).toMatchObject({ needs_enabling: true, enabled: true, identity: "opsbot", truncated: false });

    const run = cairn(ws.dir, ["agents", "run", "planted", "--json"], { env: { ...env, ...machine } });
    expect(run.code, run.stderr).toBe(0);
    const who = JSON.parse(readFileSync(whoamiFile(), "utf8")) as { name: string; role: string };
    expect(who).toMatchObject({ name: expect.stringMatching(/^opsbot-run-/), role: "ops" });
    // It ran from the copy of what was checked, in the machine's folder, discarded after.
    const where = /CWD=(\S+) HOME=(\S+)/.exec((run.json as { stdout: string }).stdout);
    expect(where?.[1]).toMatch(/operator-machine\/agent-runs\/cairn-agent-run-\d+-/);
    expect(where?.[2]).toBe(where?.[1]);
    expect(existsSync(where?.[1] as string)).toBe(false);
    expect(cairn(ws.dir, ["daemon", "--once"], { env: { ...env, ...machine } }).code).toBe(0);
    expect(runs(machine)[0]).toMatchObject({ status: "ok" });

    // A file added beside the manifest (a module its command would load) ...
    writeFileSync(join(folder, "sitecustomize.py"), "print('planted')\n");
    const added = cairn(ws.dir, ["agents", "run", "planted", "--json"], { env: { ...env, ...machine } });
    expect(added.code).toBe(3);
    expect(added.json).toMatchObject({
      refused: { policy: "identity", reason: expect.stringMatching(/changed since the operator enabled it/) },
    });
    // ... or the manifest's command changed: neither acts as opsbot, by hand or on schedule.
    writeFileSync(join(folder, "sitecustomize.py"), "");
    writeAgent(ws.dir, "planted", planted('# "echo" now'));
    const edited = cairn(ws.dir, ["agents", "run", "planted", "--json"], { env: { ...env, ...machine } });
    expect(edited.code).toBe(3);
    // Two runs acted as opsbot: the one by hand and the daemon's, both before the changes.
    expect(minted()).toHaveLength(2);
  });

  it("is never enabled through a link out of its folder into the project, nor by a line naming another agent", () => {
    const folder = join(ws.dir, ".cairn", "agents", "planted");
    writeAgent(ws.dir, "planted", planted());
    mkdirSync(join(ws.dir, "lib"));
    symlinkSync(join(ws.dir, "lib"), join(folder, "lib"));
    const digest = cairn(ws.dir, ["agents", "digest", "planted", "--json"], { env });
    expect(digest.json).toMatchObject({ truncated: true });
    const machine = { CAIRN_HOME: join(ws.dir, "operator-machine") };
    mkdirSync(machine.CAIRN_HOME);
    writeFileSync(
      join(machine.CAIRN_HOME, "cairn.toml"),
      `[agents.identities]\n${(digest.json as { enable_line: string }).enable_line}\n`,
    );
    const linked = cairn(ws.dir, ["agents", "run", "planted", "--json"], { env: { ...env, ...machine } });
    expect(linked.code).toBe(3);
    expect(linked.json).toMatchObject({ refused: { reason: expect.stringMatching(/does not cover/) } });

    // The digest of a folder enabled under another agent's name enables nothing here.
    writeAgent(ws.dir, "plain", planted().replace('name = "planted"', 'name = "plain"'));
    const other = cairn(ws.dir, ["agents", "digest", "plain", "--json"], { env }).json as { digest: string };
    writeFileSync(
      join(machine.CAIRN_HOME, "cairn.toml"),
      `[agents.identities]\nplanted = ${JSON.stringify(other.digest)}\n`,
    );
    const borrowed = cairn(ws.dir, ["agents", "run", "plain", "--json"], { env: { ...env, ...machine } });
    expect(borrowed.code).toBe(3);
    expect(minted()).toEqual([]);
  });

  it("is not enabled while its folder holds a file with a second hard link, which the digest cannot read", () => {
    const folder = join(ws.dir, ".cairn", "agents", "planted");
    writeAgent(ws.dir, "planted", planted());
    const machine = enableIdentities(ws.dir, ["planted"], env);
    // A module the command's interpreter would load by its name (Python's script folder comes
    // before the standard library), written elsewhere in the project and linked in: the digest
    // opens no file with two names, and passing over it left the enabling in force.
    writeFileSync(join(ws.dir, "evil.py"), "def dumps(value): return 'planted'\n");
    linkSync(join(ws.dir, "evil.py"), join(folder, "json.py"));
    expect(
      cairn(ws.dir, ["agents", "digest", "planted", "--json"], { env: { ...env, ...machine } }).json,
    ).toMatchObject({ truncated: true, enabled: false });
    const run = cairn(ws.dir, ["agents", "run", "planted", "--json"], { env: { ...env, ...machine } });
    expect(run.code, run.stdout).toBe(3);
    expect(run.json).toMatchObject({
      refused: { policy: "identity", reason: expect.stringMatching(/hard link/) },
    });
    expect(minted()).toEqual([]);
  });

  it("enabled, runs its command as found on PATH outside the project (npx puts node_modules/.bin first)", () => {
    writeAgent(
      ws.dir,
      "planted",
      planted().replace(`command = ${JSON.stringify(process.execPath)}`, 'command = "node"'),
    );
    const bin = join(ws.dir, "node_modules", ".bin");
    const npx = { PATH: [bin, join(process.execPath, ".."), process.env.PATH].join(delimiter) };
    const machine = enableIdentities(ws.dir, ["planted"], { ...env, ...npx });
    // The worker plants `node` where the owner's PATH looks first: the enabled manifest's
    // command would be its program, run as opsbot's child.
    mkdirSync(bin, { recursive: true });
    const marker = join(ws.dir, "planted-ran");
    writeFileSync(join(bin, "node"), `#!/bin/sh\necho "$CAIRN_AGENT" > ${JSON.stringify(marker)}\n`);
    chmodSync(join(bin, "node"), 0o755);
    const run = cairn(ws.dir, ["agents", "run", "planted", "--json"], {
      env: { ...env, ...npx, ...machine },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
    const who = JSON.parse(readFileSync(whoamiFile(), "utf8")) as { name: string };
    expect(who.name).toMatch(/^opsbot-run-/);
  });

  it("enabled, loads no code from the project through the folders it inherits (PYTHONPATH, NODE_PATH…)", () => {
    const seen = join(ws.dir, "seen.json");
    const print = `require("fs").writeFileSync(${JSON.stringify(seen)}, JSON.stringify({ NODE_PATH: process.env.NODE_PATH, PYTHONPATH: process.env.PYTHONPATH, PERL5LIB: process.env.PERL5LIB, RUBYLIB: process.env.RUBYLIB }))`;
    const { machine } = enabledAgent("printer", process.execPath, ["-e", print], {});
    // The operator's shell, as a project's developer keeps it: python and node look in the
    // project first, where any worker can put a sitecustomize.py or a module of a needed name.
    const shell = {
      NODE_PATH: [join(ws.dir, "lib"), "/opt/shared/node"].join(delimiter),
      PYTHONPATH: [".", "", join(ws.dir, "src"), "/opt/shared/py"].join(delimiter),
      PERL5LIB: join(ws.dir, "perl"),
      RUBYLIB: "/opt/shared/ruby",
    };
    const run = cairn(ws.dir, ["agents", "run", "printer", "--json"], {
      env: { ...env, ...machine, ...shell },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(readFileSync(seen, "utf8"))).toEqual({
      NODE_PATH: "/opt/shared/node",
      PYTHONPATH: "/opt/shared/py",
      RUBYLIB: "/opt/shared/ruby",
    });
  });

  it("enabled, reads the folders its [env] extra names in its own folder from the run's copy", () => {
    const folder = join(ws.dir, ".cairn", "agents", "modular");
    const seen = join(ws.dir, "seen.json");
    const print = `require("fs").writeFileSync(${JSON.stringify(seen)}, JSON.stringify({ home: process.env.AGENT_HOME, path: process.env.NODE_PATH, loaded: require.resolve("helper") }))`;
    writeAgent(
      ws.dir,
      "modular",
      [
        "[agent]",
        'name = "modular"',
        "[run]",
        `command = ${JSON.stringify(process.execPath)}`,
        `args = ${JSON.stringify(["-e", print])}`,
        "[env]",
        `extra = { NODE_PATH = ${JSON.stringify([join(folder, "lib"), "/opt/shared/node"].join(delimiter))} }`,
        "[cairn]",
        'identity = "opsbot"',
        "",
      ].join("\n"),
    );
    mkdirSync(join(folder, "lib"));
    writeFileSync(join(folder, "lib", "helper.js"), "module.exports = 'reviewed';\n");
    const machine = enableIdentities(ws.dir, ["modular"], env);
    const run = cairn(ws.dir, ["agents", "run", "modular", "--json"], { env: { ...env, ...machine } });
    expect(run.code, run.stderr).toBe(0);
    // Read from the live folder, a worker swapping helper.js by rename in a loop (as the script
    // in runsWhileSwapped) would have its module run as opsbot's child.
    const { home, path, loaded } = JSON.parse(readFileSync(seen, "utf8")) as {
      home: string;
      path: string;
      loaded: string;
    };
    expect(home).not.toBe(folder);
    expect(path).toBe([join(home, "lib"), "/opt/shared/node"].join(delimiter));
    expect(loaded).toBe(join(home, "lib", "helper.js"));
  });

  /**
   * What 40 runs of `name` printed while a worker swaps its `run.sh` by rename in a loop, between
   * the enabled bytes (`reviewed`) and its own (`echo UNREVIEWED`): at any moment the script is
   * whole, one or the other.
   */
  async function runsWhileSwapped(
    name: string,
    folder: string,
    machine: Record<string, string>,
    reviewed: string,
  ): Promise<string[]> {
    const spare = join(ws.dir, "spare");
    mkdirSync(spare);
    writeFileSync(join(spare, "good.sh"), reviewed);
    writeFileSync(join(spare, "evil.sh"), "echo UNREVIEWED\n");
    const swapper = spawn(
      "sh",
      [
        "-c",
        'while :; do cp "$1/evil.sh" "$2/n" && mv "$2/n" "$2/run.sh"; cp "$1/good.sh" "$2/n" && mv "$2/n" "$2/run.sh"; done',
        "swap",
        spare,
        folder,
      ],
      { stdio: "ignore", detached: true },
    );
    const outputs: string[] = [];
    try {
      // At least twenty runs against a swap in a tight loop, which holds a core for as long as
      // they take: `sh run.sh` read from the swapped folder itself met the other script in 22 of
      // 40 tries, so a build that ran the live folder would fail all but about one time in a
      // million. Then on, up to a hundred, until one has run the enabled bytes: under a loaded
      // machine most runs find the folder mid-swap and are refused, and twenty refusals in a row
      // (a CI run had them) prove nothing either way.
      const ranEnabled = () => outputs.some((output) => /(?<!UN)REVIEWED/.test(output));
      for (let n = 0; n < 100 && (n < 20 || !ranEnabled()); n++) {
        const run = await cairnAsync(ws.dir, ["agents", "run", name, "--json"], {
          env: { ...env, ...machine },
        });
        outputs.push(run.stdout + run.stderr);
      }
    } finally {
      process.kill(-(swapper.pid as number), "SIGKILL");
    }
    return outputs;
  }

  it("enabled, runs only what was enabled while a worker swaps its script by rename in a loop", async () => {
    const { folder, machine } = enabledAgent("swapped", "sh", ["run.sh"], { "run.sh": "echo REVIEWED\n" });
    const outputs = await runsWhileSwapped("swapped", folder, machine, "echo REVIEWED\n");
    expect(outputs.filter((output) => output.includes("UNREVIEWED"))).toEqual([]);
    // The swap is not in the way of every run: some found the enabled bytes and ran them.
    expect(outputs.some((output) => /(?<!UN)REVIEWED/.test(output))).toBe(true);
  }, 90_000);

  it("enabled and working in the project, runs its own script from the copy, named by a path relative to the project", async () => {
    // Its working folder is the checkout's root (an agent that works on the code), and it names
    // its script by the path from there: that path must lead to the enabled bytes, not to the
    // folder a worker swaps in a loop.
    const name = "rooted";
    const folder = join(ws.dir, ".cairn", "agents", name);
    writeAgent(
      ws.dir,
      name,
      `[agent]\nname = "${name}"\n[run]\ncommand = "sh"\nargs = [".cairn/agents/${name}/run.sh"]\nworking_dir = "../../.."\n[cairn]\nidentity = "opsbot"\n`,
    );
    writeFileSync(join(folder, "run.sh"), 'echo "REVIEWED in $(pwd)"\n');
    const machine = enableIdentities(ws.dir, [name], env);
    const outputs = await runsWhileSwapped(name, folder, machine, 'echo "REVIEWED in $(pwd)"\n');
    expect(outputs.filter((output) => output.includes("UNREVIEWED"))).toEqual([]);
    // The folder as enabled, it runs, where its manifest says: the project's root.
    rmSync(join(folder, "n"), { force: true });
    writeFileSync(join(folder, "run.sh"), 'echo "REVIEWED in $(pwd)"\n');
    const run = cairn(ws.dir, ["agents", "run", name, "--json"], { env: { ...env, ...machine } });
    expect(run.code, run.stderr).toBe(0);
    expect((run.json as { stdout: string }).stdout).toBe(`REVIEWED in ${realpathSync(ws.dir)}\n`);
  }, 90_000);

  it("enabled, never loads a compiled module planted in its folder's __pycache__, not even under python3 -E", () => {
    const { folder, machine } = enabledAgent("py", "python3", ["-E", "main.py"], {
      "main.py": "import helper\nhelper.go()\n",
      "helper.py": 'def go(): print("REVIEWED")\n',
    });
    // The worker compiles its own helper into __pycache__, its header naming helper.py's mtime
    // and size, which Python takes for the source's own compiled copy (-E ignores any prefix).
    const forge = `import sys, os, importlib.util, marshal
folder = sys.argv[1]
st = os.stat(folder + "/helper.py")
code = compile('def go(): print("FORGED")\\n', folder + "/helper.py", "exec")
header = importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little") + (int(st.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little") + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little")
os.makedirs(folder + "/__pycache__", exist_ok=True)
open(folder + "/__pycache__/helper." + sys.implementation.cache_tag + ".pyc", "wb").write(header + marshal.dumps(code))
`;
    const forged = spawnSync("python3", ["-c", forge, folder], { encoding: "utf8" });
    expect(forged.status, forged.stderr).toBe(0);
    // The forgery works where the folder runs itself.
    expect(spawnSync("python3", ["-E", "main.py"], { cwd: folder, encoding: "utf8" }).stdout).toBe(
      "FORGED\n",
    );
    const run = cairn(ws.dir, ["agents", "run", "py", "--json"], { env: { ...env, ...machine } });
    expect(run.code, run.stderr).toBe(0);
    expect((run.json as { stdout: string }).stdout).toBe("REVIEWED\n");
  });

  it("found in the machine's folders but lying in the project (a link, dotagent's folder kept there), acts as its identity only as enabled", () => {
    const machine = { CAIRN_HOME: join(ws.dir, "operator-machine") };
    // The operator registers an agent the repository keeps by a link from the machine's folder;
    // any writer of the project then edits what runs as opsbot.
    const kept = join(ws.dir, "tools", "planted");
    mkdirSync(kept, { recursive: true });
    writeFileSync(join(kept, "agent.toml"), planted());
    mkdirSync(join(machine.CAIRN_HOME, "agents"), { recursive: true });
    symlinkSync(kept, join(machine.CAIRN_HOME, "agents", "planted"));
    const linked = cairn(ws.dir, ["agents", "run", "planted", "--json"], { env: { ...env, ...machine } });
    expect(linked.code, linked.stderr).toBe(3);
    expect(linked.json).toMatchObject({ refused: { policy: "identity" } });
    // dotagent's folder, kept in the project: the same.
    const dotagent = { ...env, ...machine, DOTAGENT_HOME: join(ws.dir, "dotagent") };
    const dotted = join(dotagent.DOTAGENT_HOME, "agents", "dotted");
    mkdirSync(dotted, { recursive: true });
    writeFileSync(join(dotted, "agent.toml"), planted().replace('name = "planted"', 'name = "dotted"'));
    const inProject = cairn(ws.dir, ["agents", "run", "dotted", "--json"], { env: dotagent });
    expect(inProject.code, inProject.stderr).toBe(3);
    expect(minted()).toHaveLength(0);
    // Enabled at its digest, it acts as opsbot.
    enableIdentities(ws.dir, ["planted"], env);
    const enabled = cairn(ws.dir, ["agents", "run", "planted", "--json"], { env: { ...env, ...machine } });
    expect(enabled.code, enabled.stderr).toBe(0);
    expect(minted()).toHaveLength(1);
  });

  it("in the machine's own folder but its agent.toml a link to a file the project keeps, acts as its identity only as enabled", () => {
    const machine = { CAIRN_HOME: join(ws.dir, "operator-machine") };
    // The folder is the machine's; the manifest in it, naming the identity and the command, is a
    // file of the repository that any writer of the project edits.
    const kept = join(ws.dir, "tools", "planted.toml");
    mkdirSync(join(ws.dir, "tools"), { recursive: true });
    writeFileSync(kept, planted());
    const folder = join(machine.CAIRN_HOME, "agents", "planted");
    mkdirSync(folder, { recursive: true });
    symlinkSync(kept, join(folder, "agent.toml"));
    const linked = cairn(ws.dir, ["agents", "run", "planted", "--json"], { env: { ...env, ...machine } });
    expect(linked.code, linked.stderr).toBe(3);
    expect(linked.json).toMatchObject({ refused: { policy: "identity" } });
    // On schedule, the owner's daemon does not act as opsbot through it either.
    const daemon = cairn(ws.dir, ["daemon", "--once", "--json"], { env: { ...env, ...machine } });
    expect(daemon.code, daemon.stderr).toBe(0);
    expect(existsSync(whoamiFile())).toBe(false);
    expect(minted()).toHaveLength(0);
    expect(
      cairn(ws.dir, ["agents", "digest", "planted", "--json"], { env: { ...env, ...machine } }).json,
    ).toMatchObject({ needs_enabling: true });
    // A hard link in its place: the same file, edited in the project, and no link to see.
    rmSync(join(folder, "agent.toml"));
    linkSync(kept, join(folder, "agent.toml"));
    const hardLinked = cairn(ws.dir, ["agents", "run", "planted", "--json"], { env: { ...env, ...machine } });
    expect(hardLinked.code, hardLinked.stderr).toBe(3);
    expect(hardLinked.json).toMatchObject({ refused: { policy: "identity" } });
    expect(minted()).toHaveLength(0);
  });

  it("in the machine's own folder (CAIRN_HOME/agents), acts as its identity as it is", () => {
    const machine = { CAIRN_HOME: join(ws.dir, "operator-machine") };
    const home = join(machine.CAIRN_HOME, "agents", "planted");
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, "agent.toml"), planted());
    const run = cairn(ws.dir, ["agents", "run", "planted", "--json"], { env: { ...env, ...machine } });
    expect(run.code, run.stderr).toBe(0);
    // The machine's own runs where it lies.
    expect((run.json as { stdout: string }).stdout).toContain(`CWD=${home} HOME=${home}`);
    expect(minted()).toHaveLength(1);
    expect(
      cairn(ws.dir, ["agents", "digest", "planted", "--json"], { env: { ...env, ...machine } }).json,
    ).toMatchObject({ needs_enabling: false });
  });
});
