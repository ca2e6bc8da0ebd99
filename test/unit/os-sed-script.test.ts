import { describe, expect, it } from "vitest";
import { OsConfig } from "../../src/domains/os/config.js";
import { decide } from "../../src/domains/os/policy.js";
import {
  sedScriptRunsShell,
  sedScripts,
  sedScriptWritesFile,
  substitutionRunsShell,
  substitutionWritesFile,
} from "../../src/domains/os/sed-script.js";
import { elapsed, randomTexts } from "../helpers/random-texts.js";

/** The patterns this replaced: the second backtracked through every pair of delimiters from every `s`. */
const EXEC_COMMAND_AT_START = /(^|[;\n}])\s*e(\s|$)/;
const EXEC_FLAG = /s(.).*\1.*\1[gpiIwmM0-9]*e/;
/** The same shape for the `w` flag, which writes the file named after it. */
const WRITE_FLAG = /s(.).*\1.*\1[gpiIemM0-9]*w/;

describe("a sed script that runs a shell", () => {
  const everything = OsConfig.parse({ enabled: true, allow: ["*"] });
  const verdict = (script: string) => decide(everything, "sed", ["-n", script, "notes.txt"]).verdict;

  it("needs a person for the e command after any address, or the e flag with any delimiter", () => {
    for (const script of [
      "e id",
      "1e id",
      "1eid",
      "$!e id",
      "0~2e id",
      "1,+3 e id",
      "/x/e id",
      "/a\\/b/,/y/Ie id",
      "\\%x%e id",
      "p;2e id",
      "1{e id\n}",
      "s/x/id/e",
      "s|x|id|ge",
      "s/a/b/w out\ns/x/y/Ie",
    ])
      expect(verdict(script), script).toBe("refuse");
    for (const script of ["s/x/y/g", "s/error/warning/", "/e/d", "1,3p", "y/abc/xyz/", ":end\nb end"])
      expect(verdict(script), script).toBe("allow");
  });

  it("finds every script the old patterns found, and the same substitutions, on 20,000 random scripts", () => {
    const alphabet = ["s", "/", "|", "e", "g", "1", "$", "!", "x", " ", ";", "}", "\n", "\r", "\\", "é"];
    for (const script of randomTexts(20_000, alphabet, 24, 11)) {
      expect(substitutionRunsShell(script), JSON.stringify(script)).toBe(EXEC_FLAG.test(script));
      if (EXEC_COMMAND_AT_START.test(script))
        expect(sedScriptRunsShell(script), JSON.stringify(script)).toBe(true);
    }
  });

  it("decides an 8 KB argument, the most run_os takes, at once", () => {
    // The substitution pattern took 10 s on 2,000 `s`, and minutes at 8 KB, with the server blocked.
    const took = elapsed(() => {
      for (const script of [
        "s".repeat(8192),
        "s/".repeat(4096),
        "\n".repeat(8192),
        ";/".repeat(4096),
        `;${"\\".repeat(8191)}`,
        "1".repeat(8192),
      ])
        expect(sedScriptRunsShell(script)).toBe(false);
      expect(sedScriptRunsShell(`s${"/".repeat(8190)}e`)).toBe(true);
    });
    expect(took).toBeLessThan(2_000);
  });
});

describe("a sed script or option that writes a file", () => {
  const everything = OsConfig.parse({ enabled: true, allow: ["*"] });
  const decided = (args: string[]) => {
    const verdict = decide(everything, "sed", args);
    return verdict.verdict === "refuse" ? verdict.reason : "allow";
  };

  it("needs a person for the w and W commands after any address, and the w flag with any delimiter", () => {
    for (const script of [
      "1w /tmp/P7",
      "w /home/u/.bashrc",
      "$!W out",
      "/x/,/y/w out",
      "\\%x%Iw out",
      "p;1w out",
      "1{w out\n}",
      "s/x/y/w out",
      "s|x|y|gw out",
      "s/x/y/2pw out",
      "s/a/b/\n1w /dev/stdoutx",
    ]) {
      expect(decided(["-n", script, "notes.txt"]), script).toContain(
        "`sed w` writes a file named on the command line",
      );
      expect(decided(["-n", "-e", "p", "--expression", script, "notes.txt"]), script).not.toBe("allow");
      expect(decided([`--expression=${script}`, "notes.txt"]), script).not.toBe("allow");
    }
    // GNU sed's own output is no file; neither is a w inside a regex, a replacement or a label.
    for (const script of [
      "s/x/y/w /dev/stdout",
      "1w /dev/stderr",
      "s/w/W/g",
      "/www/d",
      "y/w/W/",
      ":w\nb w",
      "s/x/y/gp",
    ])
      expect(decided(["-n", script, "notes.txt"]), script).toBe("allow");
    expect(sedScriptWritesFile("s/x/y/w /dev/stdout\n2w out")).toBe(true);
    // Only scripts are read: files named like an `e` or `w` command are files.
    for (const args of [
      ["-n", "p", "errors.log", "words.txt"],
      ["s/a/b/", "w"],
      ["-e", "p", "exec.txt"],
      ["--expression=p", "--", "w1"],
      ["-s", "-n", "-l", "80", "l", "e.txt"],
    ])
      expect(decided(args), args.join(" ")).toBe("allow");
    expect(sedScripts(["-n", "-e", "p", "--expr", "1w x", "-es/a/b/", "f", "g"])).toEqual([
      "p",
      "1w x",
      "s/a/b/",
    ]);
    expect(sedScripts(["-ni", "1w x", "f"])).toEqual(["1w x"]);
    expect(sedScripts(["-n", "--", "-1w x", "f"])).toEqual(["-1w x"]);
    // A script joined to its flag is read too, for `e` as for `w`.
    for (const args of [
      ["--expression=1e id", "f"],
      ["-e1e id", "f"],
      ["-ne1e id", "f"],
      ["--ex=$!e id", "f"],
    ])
      expect(decided(args), args.join(" ")).toContain("`sed e` runs code given on the command line");
  });

  it("finds the same w substitutions as the pattern, on 20,000 random scripts", () => {
    const alphabet = ["s", "/", "|", "w", "e", "g", "1", "$", "!", "x", " ", ";", "}", "\n", "\r", "\\", "é"];
    for (const script of randomTexts(20_000, alphabet, 24, 12))
      expect(substitutionWritesFile(script), JSON.stringify(script)).toBe(WRITE_FLAG.test(script));
  });

  it("needs a person for in-place editing and a script file, in every spelling", () => {
    for (const args of [
      ["-i", "1i touch /tmp/x", "/home/u/.bashrc"],
      ["-i.bak", "s/a/b/", "f"],
      ["-ni", "p", "f"],
      ["-Ei", "s/a/b/", "f"],
      ["--in-place", "s/a/b/", "f"],
      ["--in-place=.bak", "s/a/b/", "f"],
      ["--in-pl", "s/a/b/", "f"],
      ["-I", "", "s/a/b/", "f"],
      ["-f", "script.sed", "f"],
      ["-nf", "script.sed", "f"],
      ["-fscript.sed", "f"],
      ["--file=script.sed", "f"],
      ["--fi", "script.sed", "f"],
    ])
      expect(decided(args), args.join(" ")).not.toBe("allow");
    expect(decided(["--in-place", "s/a/b/", "f"])).toContain("writes a file named on the command line");
    expect(decided(["-f", "script.sed", "f"])).toContain("runs code given on the command line");
    // A script given with -e holds an f or an i as text, not as a flag.
    for (const args of [
      ["-nes/fi/if/p", "f"],
      ["-e", "s/a/b/", "-E", "f"],
      ["-n", "-l", "80", "l", "f"],
      ["-s", "-z", "p"],
    ])
      expect(decided(args), args.join(" ")).toBe("allow");
  });
});
