import { describe, expect, it } from "vitest";
import { OsConfig } from "../../src/domains/os/config.js";
import { decide } from "../../src/domains/os/policy.js";
import { sedScriptRunsShell, substitutionRunsShell } from "../../src/domains/os/sed-script.js";
import { elapsed, randomTexts } from "../helpers/random-texts.js";

/** The patterns this replaced: the second backtracked through every pair of delimiters from every `s`. */
const EXEC_COMMAND_AT_START = /(^|[;\n}])\s*e(\s|$)/;
const EXEC_FLAG = /s(.).*\1.*\1[gpiIwmM0-9]*e/;

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
