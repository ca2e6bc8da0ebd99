import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callTool, connectMcp, type McpHandle } from "../helpers/mcp.js";
import { cairn, initWorkspace, machineHome } from "../helpers/workspace.js";

/**
 * An allowed program's options that run a command or write a file it names, in the forms the
 * program itself takes: a long option's abbreviation (`--checkpoint-act` for tar's
 * `--checkpoint-action`, `--ev` for make's `--eval`), joined by `=` or with its value next.
 */

let ws: { dir: string; cleanup: () => void };
let env: Record<string, string>;
let config: string;
let mcp: McpHandle;
const planted = (name: string) => join(ws.dir, name);

beforeAll(async () => {
  ws = initWorkspace();
  ({ env, config } = machineHome(
    ws.dir,
    '[os]\nenabled = true\nallow = ["tar", "make", "sort", "find", "sed", "git log", "wget"]\n',
  ));
  writeFileSync(join(ws.dir, "words.txt"), "pear\napple\n");
  mcp = await connectMcp(ws.dir, { env });
});
afterAll(async () => {
  await mcp.close();
  ws.cleanup();
});

const osRun = (bin: string, ...args: string[]) =>
  cairn(ws.dir, ["os", "run", bin, "--json", "--", ...args], { env });
const refusalOverMcp = async (bin: string, args: string[]) =>
  (
    (await callTool(mcp, "os_run", { bin, args })).structuredContent as {
      refused?: { policy: string; reason: string };
    }
  ).refused;

describe("os run reads an abbreviated long option as the option it stands for", () => {
  it("refuses tar --checkpoint-act, make --ev, a make variable running a shell, find -fprintf, git --output and sed's w, naming the machine's configuration; nothing runs", () => {
    for (const [bin, ...args] of [
      [
        "tar",
        "-cf",
        "/dev/null",
        "--checkpoint=1",
        `--checkpoint-act=exec=touch ${planted("P1")}`,
        "words.txt",
      ],
      ["make", "-f", "/dev/null", `--ev=$(shell touch ${planted("P4")})`],
      ["make", "-f", "/dev/null", `X:=$(shell touch ${planted("P3")})`],
      ["tar", "cIf", `sh -c 'touch ${planted("P2")}; cat'`, "a.tar", "words.txt"],
      ["find", "words.txt", "-fprintf", planted("P5"), "touch x\\n"],
      ["sort", "-S", "4k", "--compress-prog=sh", "words.txt"],
      ["git", "log", "-1", `--output=${planted("P6")}`],
      ["sed", "-n", `1w ${planted("P7")}`, "words.txt"],
      ["sed", `--expression=1e touch ${planted("P8")}`, "words.txt"],
    ] as string[][]) {
      const refused = osRun(bin as string, ...args);
      expect(refused.code, [bin, ...args].join(" ")).toBe(3);
      expect(refused.stderr).toContain("needs a person's confirmation");
      expect(refused.stderr).toContain(config);
    }
    for (const name of ["P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8"])
      expect(existsSync(planted(name)), name).toBe(false);
  });

  it("still runs the harmless forms: tar's own --checkpoint written in full, sort, sed writing to its own output", () => {
    const tar = osRun("tar", "-cf", "/dev/null", "--checkpoint=1", "words.txt");
    expect(tar.code, tar.stderr).toBe(0);
    const sort = osRun("sort", "words.txt");
    expect(sort.code, sort.stderr).toBe(0);
    expect((sort.json as { stdout: string }).stdout).toBe("apple\npear\n");
    const sed = osRun("sed", "-n", "s/pear/plum/w /dev/stdout", "words.txt");
    expect(sed.code, sed.stderr).toBe(0);
    expect((sed.json as { stdout: string }).stdout).toBe("plum\n");
  });

  it("refuses the same over MCP as a refusal naming the configuration, and runs the harmless one", async () => {
    const refused = await refusalOverMcp("tar", [
      "-cf",
      "/dev/null",
      "--checkpoint=1",
      `--checkpoint-act=exec=touch ${planted("P1m")}`,
      "words.txt",
    ]);
    expect(refused?.policy).toBe("os");
    expect(refused?.reason).toContain("`tar --checkpoint-action`");
    expect(refused?.reason).toContain(config);
    expect(existsSync(planted("P1m"))).toBe(false);
    const sort = await callTool(mcp, "os_run", { bin: "sort", args: ["words.txt"] });
    expect((sort.structuredContent as { stdout: string }).stdout).toBe("apple\npear\n");
  });
});
