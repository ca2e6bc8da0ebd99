import { describe, expect, it } from "vitest";
import { checkEnv } from "../../src/kernel/child.js";
import { settingOf, withSetting } from "../../src/kernel/setting.js";

/** What reaches a check of what its runner's environment holds: the check's, not the caller's. */
describe("a check's environment", () => {
  it("drops what runs code of the caller's choosing, and keeps what only describes the machine", () => {
    const env = checkEnv({
      PATH: "/usr/bin",
      LANG: "C.UTF-8",
      DATABASE_URL: "postgres://localhost/test",
      CARGO_TARGET_DIR: "/tmp/target",
      "BASH_FUNC_npm%%": "() { exit 0; }",
      SHELLOPTS: "xtrace",
      GIT_EXEC_PATH: "/tmp/fake-git",
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "alias.x",
      GIT_CONFIG_VALUE_0: "!true",
      GIT_CONFIG_PARAMETERS: "'a.b'='c'",
      GIT_DIR: "/tmp/other/.git",
      MAKEFLAGS: "SHELL=/bin/true",
      MAKEFILES: "/tmp/evil.mk",
      RUSTC_WRAPPER: "/tmp/fake",
      CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER: "/bin/true",
      GOFLAGS: "-exec=/bin/true",
      MAVEN_OPTS: "-javaagent:/tmp/a.jar",
      DOTNET_STARTUP_HOOKS: "/tmp/hook.dll",
      PHPRC: "/tmp/php.ini",
      GCONV_PATH: "/tmp/gconv",
    });
    expect(Object.keys(env).sort()).toEqual(["CARGO_TARGET_DIR", "DATABASE_URL", "LANG", "PATH"]);
  });

  it("reads tools' moved configuration where whoever set the check had it, and nowhere the caller chose", () => {
    const recorded = settingOf({
      PATH: "/usr/bin",
      HOME: "/",
      XDG_CONFIG_HOME: "/owner/config",
      CARGO_HOME: "rel",
    });
    // Only absolute locations are recorded: a relative one would be read from the check's folder.
    expect(recorded.locations).toEqual({ XDG_CONFIG_HOME: "/owner/config" });
    const env = withSetting(
      { PATH: "/usr/bin", XDG_CONFIG_HOME: "/tmp/agent", GIT_CONFIG_GLOBAL: "/tmp/agent/gitconfig" },
      recorded,
    );
    expect(env.XDG_CONFIG_HOME).toBe("/owner/config");
    expect(env.GIT_CONFIG_GLOBAL).toBeUndefined();
    // A setting recorded before locations were leaves them as the caller has them.
    const legacy = withSetting({ XDG_CONFIG_HOME: "/tmp/agent" }, { path: ["/usr/bin"] });
    expect(legacy.XDG_CONFIG_HOME).toBe("/tmp/agent");
  });
});
