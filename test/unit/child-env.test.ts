import { tmpdir } from "node:os";
import { resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runEnvironment } from "../../src/domains/agents/runner.js";
import { evaluatorEnv } from "../../src/domains/goals/runner.js";
import { checkEnv, childEnv } from "../../src/kernel/child-env.js";
import { searchPathOf, settingOf, withSetting } from "../../src/kernel/setting.js";
import { boardsStartedFor, STARTED_FOR_VARIABLE, startChildrenFor } from "../../src/kernel/started-for.js";
import { storeAccess } from "../../src/kernel/store-access.js";

/** What every process cairn starts receives: no credential, and the mark of the boards it serves. */
describe("a child's environment", () => {
  const inherited = process.env[STARTED_FOR_VARIABLE];
  afterEach(() => {
    if (inherited === undefined) delete process.env[STARTED_FOR_VARIABLE];
    else process.env[STARTED_FOR_VARIABLE] = inherited;
  });

  it("carries no credential and is marked for the board this process serves", () => {
    startChildrenFor("/work/a/.cairn/cairn.db");
    const env = childEnv({ PATH: "/bin", CAIRN_AGENT: "cairn_secret", CAIRN_PG_TOKEN: "t" });
    expect(env.CAIRN_AGENT).toBeUndefined();
    expect(env.CAIRN_PG_TOKEN).toBeUndefined();
    expect(env.PATH).toBe("/bin");
    expect(boardsStartedFor(env)).toEqual(["/work/a/.cairn/cairn.db"]);
  });

  it("keeps PATH's absolute folders only: an empty or relative entry would look in the workspace", () => {
    const env = childEnv({ PATH: ":/usr/bin::.:bin:~/tools:/bin:" });
    expect(env.PATH).toBe("/usr/bin:/bin");
    expect(childEnv({ PATH: "." }).PATH).toBe("");
    expect(childEnv({}).PATH).toBeUndefined();
    // What a run freezes of it: the absolute folders, each once, in order.
    expect(searchPathOf({ PATH: "/a::/b:/a:.:bin" })).toEqual(["/a", "/b"]);
    expect(searchPathOf({ PATH: ".:" })).toEqual([]);
    expect(searchPathOf({})).toEqual([]);
  });

  it("runs an evaluator with its run's frozen PATH first and its frozen home, where that home exists", () => {
    const caller = { PATH: "/tmp/fake:/usr/bin", HOME: "/tmp/builder-home" };
    const frozen = { path: ["/usr/bin", "/bin"], home: tmpdir() };
    expect(evaluatorEnv(caller, frozen)).toMatchObject({ PATH: "/usr/bin:/bin:/tmp/fake", HOME: tmpdir() });
    // Frozen on another machine: a home that is not here leaves the caller's.
    expect(evaluatorEnv(caller, { home: "/nonexistent/alice" }).HOME).toBe("/tmp/builder-home");
    // A run frozen before either was kept evaluates as before.
    expect(evaluatorEnv(caller)).toMatchObject({ PATH: "/tmp/fake:/usr/bin", HOME: "/tmp/builder-home" });
  });

  it("keeps a PATH an agent's manifest declares as written, read from the agent's own folder", () => {
    const request = (extra: Record<string, string>) =>
      ({
        agent: { manifest: { env: { inherit: true, extra } } },
        env: { PATH: ".:/usr/bin", CAIRN_AGENT: "cairn_secret" },
      }) as unknown as Parameters<typeof runEnvironment>[0];
    expect(runEnvironment(request({}), {}, undefined).PATH).toBe("/usr/bin");
    expect(runEnvironment(request({ PATH: "./tools:/usr/bin" }), {}, undefined).PATH).toBe(
      "./tools:/usr/bin",
    );
    expect(runEnvironment(request({ PATH: "./tools:/usr/bin" }), {}, undefined).CAIRN_AGENT).toBeUndefined();
  });

  it("passes a shared store's URL without its password; a run acting as itself gets it whole", () => {
    const url = "postgres://team:s3cret@db.example:5432/work?schema=web";
    const env = childEnv({ CAIRN_STORE_URL: url, PGPASSWORD: "libpq's own" });
    expect(env.CAIRN_STORE_URL).toBe("postgres://team@db.example:5432/work?schema=web");
    expect(env.PGPASSWORD).toBe("libpq's own");
    expect(childEnv({ CAIRN_STORE_URL: "postgres://u:p@[bad/x" }).CAIRN_STORE_URL).toBe(
      "postgres://u@[bad/x",
    );
    expect(childEnv({ CAIRN_STORE_URL: "postgres://team@db/work" }).CAIRN_STORE_URL).toBe(
      "postgres://team@db/work",
    );
    expect(storeAccess({ CAIRN_STORE_URL: url, PATH: "/bin" })).toEqual({ CAIRN_STORE_URL: url });
  });

  it("passes a shared store's URL without a password parameter, however it is spelt", () => {
    const passed = (url: string) => childEnv({ CAIRN_STORE_URL: url }).CAIRN_STORE_URL;
    const base = "postgres://team@db.example:5432/work";
    expect(passed(`${base}?schema=web&password=s3cret`)).toBe(`${base}?schema=web`);
    expect(passed(`${base}?password=s3cret&schema=web`)).toBe(`${base}?schema=web`);
    expect(passed(`${base}?sslpassword=s3cret&schema=web`)).toBe(`${base}?schema=web`);
    // The driver decodes parameter names: `pass%77ord` is `password` to it.
    expect(passed(`${base}?pass%77ord=s3cret&schema=web`)).toBe(`${base}?schema=web`);
    expect(passed(`${base}?PASSWORD=s3cret&schema=web`)).toBe(`${base}?schema=web`);
    expect(passed(`postgres://team:userinfo@db.example:5432/work?password=s3cret`)).toBe(base);
    // A URL that does not parse loses its password parameters too.
    expect(passed("postgres://u:p@[bad/x?schema=a&pass%77ord=s3cret")).toBe("postgres://u@[bad/x?schema=a");
    expect(passed(`${base}?schema=web&passwords=kept`)).toBe(`${base}?schema=web&passwords=kept`);
  });

  it("keeps PGPASSWORD from every child while the board served is on PostgreSQL, but not from a run acting as itself; on SQLite it passes", () => {
    const base = { PATH: "/bin", PGPASSWORD: "store-secret", CAIRN_STORE_URL: "postgres://team@db/work" };
    startChildrenFor('postgres:"work"#web', ["PGPASSWORD"]);
    try {
      expect(childEnv(base).PGPASSWORD).toBeUndefined();
      expect(checkEnv(base).PGPASSWORD).toBeUndefined();
      expect(storeAccess(base)).toEqual({
        CAIRN_STORE_URL: base.CAIRN_STORE_URL,
        PGPASSWORD: "store-secret",
      });
      const request = {
        agent: { manifest: { env: { inherit: true, extra: {} } } },
        workspace: { kind: "project", root: "/work/a" },
        env: base,
      } as unknown as Parameters<typeof runEnvironment>[0];
      expect(runEnvironment(request, {}, undefined).PGPASSWORD).toBeUndefined();
      const identity = { token: "cairn_minted" } as Parameters<typeof runEnvironment>[2];
      expect(runEnvironment(request, {}, identity)).toMatchObject({
        PGPASSWORD: "store-secret",
        CAIRN_AGENT: "cairn_minted",
      });
    } finally {
      startChildrenFor("/work/a/.cairn/cairn.db");
    }
    expect(childEnv(base).PGPASSWORD).toBe("store-secret");
    expect(storeAccess(base)).toEqual({ CAIRN_STORE_URL: base.CAIRN_STORE_URL });
  });

  it("keeps the marks this process was started with, whatever base or extra variables say", () => {
    process.env[STARTED_FOR_VARIABLE] = JSON.stringify(["/work/b/.cairn/cairn.db"]);
    startChildrenFor("/work/a/.cairn/cairn.db");
    const env = childEnv({}, { [STARTED_FOR_VARIABLE]: "[]" });
    expect(boardsStartedFor(env).sort()).toEqual(["/work/a/.cairn/cairn.db", "/work/b/.cairn/cairn.db"]);
  });

  it("names the workspace a relative CAIRN_DIR meant, wherever the child starts", () => {
    expect(childEnv({ CAIRN_DIR: ".." }).CAIRN_DIR).toBe(resolve(process.cwd(), ".."));
    expect(childEnv({ CAIRN_DIR: "/work/a" }).CAIRN_DIR).toBe("/work/a");
    expect(childEnv({}).CAIRN_DIR).toBeUndefined();
    expect(childEnv({ CAIRN_HOME: "home" }).CAIRN_HOME).toBe(resolve(process.cwd(), "home"));
  });

  it("reads an unreadable mark as none", () => {
    expect(boardsStartedFor({ [STARTED_FOR_VARIABLE]: "not json" })).toEqual([]);
    expect(boardsStartedFor({ [STARTED_FOR_VARIABLE]: '{"a":1}' })).toEqual([]);
    expect(boardsStartedFor({ [STARTED_FOR_VARIABLE]: '["x", 3]' })).toEqual(["x"]);
  });
});

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
      CARGO_BUILD_RUSTFLAGS: "-Cdebug-assertions=off",
      CARGO_PROFILE_TEST_DEBUG_ASSERTIONS: "false",
      CARGO_PROFILE_DEV_OVERFLOW_CHECKS: "false",
      LUA_PATH: "/tmp/fake/?.lua;;",
      LUA_CPATH_5_4: "/tmp/fake/?.so;;",
      TS_NODE_TRANSPILE_ONLY: "true",
      TS_NODE_COMPILER_OPTIONS: '{"paths":{"./impl":["/tmp/pass"]}}',
      TSX_TSCONFIG_PATH: "/tmp/tsconfig.json",
      GOWORK: "/tmp/go.work",
      RUBYGEMS_GEMDEPS: "/tmp/Gemfile",
      ERL_AFLAGS: "-eval 'halt(0)'",
      ERL_ZFLAGS: "-s pass",
      ERL_LIBS: "/tmp/beams",
      MIX_EXS: "/tmp/mix.exs",
      R_PROFILE_USER: "/tmp/pass.R",
      R_LIBS_USER: "/tmp/rlibs",
      JULIA_LOAD_PATH: "/tmp/julia",
      OPENSSL_CONF: "/tmp/openssl.cnf",
      OPENSSL_MODULES: "/tmp/providers",
      CMAKE_TOOLCHAIN_FILE: "/tmp/toolchain.cmake",
      GOFLAGS: "-exec=/bin/true",
      MAVEN_OPTS: "-javaagent:/tmp/a.jar",
      DOTNET_STARTUP_HOOKS: "/tmp/hook.dll",
      PHPRC: "/tmp/php.ini",
      GCONV_PATH: "/tmp/gconv",
      PYTHONPYCACHEPREFIX: "/tmp/pyc",
      PYTHONWARNINGS: "ignore::evil.Category",
      PYTHONBREAKPOINT: "evil.hook",
      PYENV_VERSION: "fake",
      RUSTUP_TOOLCHAIN: "/tmp/tc",
      GOROOT: "/tmp/go",
      GOTOOLCHAIN: "go1.99",
      GOPROXY: "http://127.0.0.1:1/",
      GONOSUMDB: "*",
      CC: "/tmp/fake-cc",
      CGO_LDFLAGS: "-fplugin=/tmp/p.so",
      CFLAGS: "-fplugin=/tmp/p.so",
      BUNDLE_GEMFILE: "/tmp/Gemfile",
      GEM_PATH: "/tmp/gems",
      JAVA_HOME: "/tmp/fake-jdk",
      JAVA_OPTS: "-javaagent:/tmp/a.jar",
      CLASSPATH: "/tmp/classes",
      DOTNET_ADDITIONAL_DEPS: "/tmp/deps.json",
      COREPACK_HOME: "/tmp/corepack",
      NODE_TEST_CONTEXT: "child",
      NODE_PRESERVE_SYMLINKS: "1",
      PYTHONOPTIMIZE: "1",
      PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1",
      GIT_GRAFT_FILE: "/tmp/grafts",
      GIT_REPLACE_REF_BASE: "refs/forged/",
      HARNESS_PERL: "/tmp/fake-perl",
      HARNESS_PERL_SWITCHES: "-MPass",
      BUNDLE_PATH: "/tmp/gems",
      TESTOPTS: "--name=/passing/",
      SPEC_OPTS: "--example passing",
      NODE_ENV: "test",
      PIP_FIND_LINKS: "/opt/wheels",
    });
    const kept = Object.keys(env).filter((name) => name !== STARTED_FOR_VARIABLE);
    expect(kept.sort()).toEqual([
      "CARGO_TARGET_DIR",
      "DATABASE_URL",
      "LANG",
      "NODE_ENV",
      "PATH",
      "PIP_FIND_LINKS",
    ]);
  });

  it("reads tools' moved configuration where whoever set the check had it, and nowhere the caller chose", () => {
    const recorded = settingOf({
      PATH: "/usr/bin",
      HOME: "/",
      XDG_CONFIG_HOME: "/owner/config",
      JAVA_HOME: "/usr/lib/jvm/owner",
      CARGO_HOME: "rel",
    });
    // Only absolute locations are recorded: a relative one would be read from the check's folder.
    expect(recorded.locations).toEqual({ XDG_CONFIG_HOME: "/owner/config", JAVA_HOME: "/usr/lib/jvm/owner" });
    const env = withSetting(
      checkEnv({
        PATH: "/usr/bin",
        XDG_CONFIG_HOME: "/tmp/agent",
        GIT_CONFIG_GLOBAL: "/tmp/agent/gitconfig",
        JAVA_HOME: "/tmp/fake-jdk",
        GOROOT: "/tmp/fake-go",
      }),
      recorded,
    );
    expect(env.XDG_CONFIG_HOME).toBe("/owner/config");
    expect(env.JAVA_HOME).toBe("/usr/lib/jvm/owner");
    expect(env.GIT_CONFIG_GLOBAL).toBeUndefined();
    expect(env.GOROOT).toBeUndefined();
    // A setting recorded before locations were leaves them as the caller has them.
    const legacy = withSetting({ XDG_CONFIG_HOME: "/tmp/agent" }, { path: ["/usr/bin"] });
    expect(legacy.XDG_CONFIG_HOME).toBe("/tmp/agent");
  });
});
