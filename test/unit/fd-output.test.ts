import { spawnSync } from "node:child_process";
import { closeSync, existsSync, openSync } from "node:fs";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CAIRN_BIN, cleanEnv } from "../helpers/workspace.js";

// The plain write(2) path, scripted: each call takes at most `perCall` bytes of the `accept` left,
// then, with none left, fails with `fail`.
const script = vi.hoisted(() => ({ accept: Number.POSITIVE_INFINITY, perCall: 3, fail: "", calls: 0 }));
vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  return {
    ...real,
    writeSync: (_fd: number, bytes: Uint8Array, offset = 0) => {
      script.calls++;
      if (script.accept === 0) throw Object.assign(new Error(script.fail), { code: script.fail });
      const taken = Math.min(script.accept, script.perCall, bytes.length - offset);
      script.accept -= taken;
      return taken;
    },
  };
});

const { fdOutput } = await import("../../src/faces/cli/fd-output.js");

describe("the CLI's direct output", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    Object.assign(script, { accept: Number.POSITIVE_INFINITY, perCall: 3, fail: "", calls: 0 });
  });

  it("writes straight to the descriptor, looping over short writes", () => {
    const stream = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    const out = fdOutput();
    out.stderr("héllo\n");
    expect(script.calls).toBe(3); // 7 bytes, 3 at a time
    expect(stream).not.toHaveBeenCalled();
  });

  it("hands the unwritten bytes, and every later write, to the process stream when write(2) fails", () => {
    const written: Buffer[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(Buffer.from(chunk as string | Uint8Array));
      return true;
    });
    Object.assign(script, { accept: 2, fail: "EAGAIN" });
    const out = fdOutput();
    out.stderr("héllo ");
    out.stderr("wörld\n");
    // "h" and the first byte of "é" went out directly; the rest follows through the stream, byte-exact.
    expect(Buffer.concat([Buffer.from("h\xc3", "latin1"), ...written]).toString("utf8")).toBe(
      "héllo wörld\n",
    );
    expect(script.calls).toBe(2);
  });

  // Linux's /dev/full fails every write with ENOSPC, as a full disk under `cairn export > file` does.
  it.skipIf(!existsSync("/dev/full"))(
    "a full disk under stdout is one line on stderr and exit 1, not a crash printing cairn's source",
    () => {
      const full = openSync("/dev/full", "w");
      try {
        const run = spawnSync(process.execPath, [CAIRN_BIN, "capabilities", "--json"], {
          env: cleanEnv(),
          stdio: ["ignore", full, "pipe"],
          encoding: "utf8",
        });
        expect(run.status).toBe(1);
        expect(run.stderr).toBe(
          "cairn: could not write the output: ENOSPC: no space left on device, write\n",
        );
      } finally {
        closeSync(full);
      }
    },
  );
});
