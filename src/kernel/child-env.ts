import { isAbsolute, resolve } from "node:path";
import { absolutePath } from "./search-path.js";
import {
  boardsStartedFor,
  STARTED_FOR_VARIABLE,
  servedBoard,
  storeCredentialVariables,
} from "./started-for.js";
import { urlWithoutPassword } from "./url-password.js";

/**
 * What a process cairn starts finds in its environment (child.ts starts it): none of cairn's
 * credentials, and, for a check, none of the variables that put the caller's code into it.
 */

/** Variables that carry a cairn credential. A child that must act on the board gets its own token. */
const CREDENTIAL_VARIABLES = ["CAIRN_AGENT"] as const;

/**
 * Variables that put code of the caller's choosing into what a check runs, or have its runner
 * skip or pass what fails, whatever its argv says: `NODE_OPTIONS=--require ./pass.cjs` or
 * `npm_config_script_shell=/bin/true` on `cairn attempt eval` or `cairn task check` made a failing
 * `npm test` pass, and `NODE_TEST_CONTEXT=child` a failing `node --test`. Whoever is checked
 * runs the check, so none of them reaches one; a check that needs such a setting names it in its
 * argv (`env NODE_OPTIONS=… npm test`), which is the check's own. Those that name a toolchain's folder
 * (JAVA_HOME, GOROOT…) are a setting's locations too: whoever set the check chose them
 * (kernel/setting.ts).
 */
const INJECTING = [
  /^NODE_(OPTIONS|PATH)$/,
  // node: `NODE_TEST_CONTEXT=child` has `node --test` report to a parent runner that is not
  // there and exit 0 with its tests failing; preserved symlinks change which copy of a module
  // `require` loads (a linked package's dependencies are looked up beside the link).
  /^NODE_(TEST_CONTEXT|PRESERVE_SYMLINKS)$/,
  /^(npm|yarn|pnpm|bun)_config_/i,
  /^YARN_/,
  // Python: where modules and their compiled bytecode come from (a cache folder of forged .pyc
  // files passes a failing test whose source is untouched), the module a warning filter names
  // (imported to read it), the hook `breakpoint()` calls, and the interpreter a pyenv shim picks.
  /^PYTHON(PATH|HOME|STARTUP|USERBASE|INSPECT|PYCACHEPREFIX|WARNINGS|BREAKPOINT|PLATLIBDIR)$/,
  // Optimisation drops every `assert` statement: a script or unittest suite that checks with
  // them passes whatever it finds.
  /^PYTHONOPTIMIZE$/,
  /^PYENV_(VERSION|ROOT)$/,
  // pytest: options (`-k` deselecting the failing test), plugins loaded, and plugins not loaded
  // (before pytest 8.4 an async test whose plugin is off is skipped, and the run passes).
  /^PYTEST_(ADDOPTS|PLUGINS|DISABLE_PLUGIN_AUTOLOAD)$/,
  /^LD_(PRELOAD|LIBRARY_PATH|AUDIT)$/,
  /^DYLD_/,
  /^GCONV_PATH$/,
  // Shells: startup files and options, a function exported under a command's name (bash runs
  // `BASH_FUNC_node%%` for every `node` a script calls), and a trace prompt that runs code.
  /^(BASH_ENV|ENV|ZDOTDIR|SHELLOPTS|BASHOPTS|PS4)$/,
  /^BASH_FUNC_/,
  // git: programs it runs, configuration given in variables, and the repository it looks at.
  /^GIT_(EXEC_PATH|EXTERNAL_DIFF|ASKPASS|SSH|SSH_COMMAND|PROXY_COMMAND|TEMPLATE_DIR)$/,
  /^GIT_CONFIG(_PARAMETERS|_COUNT|_KEY_\d+|_VALUE_\d+|_SYSTEM|_NOSYSTEM)?$/,
  /^GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|COMMON_DIR|NAMESPACE)$/,
  // git's grafts, replace refs and shallow boundary: other commits read in place of those named.
  /^GIT_(GRAFT_FILE|REPLACE_REF_BASE|SHALLOW_FILE)$/,
  // make reads MAKEFILES before the project's Makefile, and MAKEFLAGS may set its SHELL.
  /^(MAKEFILES|MAKEFLAGS|MFLAGS)$/,
  // Build tools that run a program of the variable's choosing: a compiler wrapper, a test
  // runner (`go test -exec`, cargo's target runner), a linker in flags, JVM agents, .NET hooks.
  /^(RUSTC|RUSTC_WRAPPER|RUSTC_WORKSPACE_WRAPPER|RUSTDOC|RUSTFLAGS|RUSTDOCFLAGS)$/,
  // The toolchain rustup runs for `cargo` (a folder of the caller's holding a `cargo` that exits 0).
  /^RUSTUP_TOOLCHAIN$/,
  /^CARGO_(ENCODED_RUSTFLAGS|BUILD_RUSTC.*|BUILD_RUSTDOC.*|BUILD_RUSTFLAGS|TARGET_.+_(RUNNER|LINKER|RUSTFLAGS))$/,
  // cargo's profiles: `CARGO_PROFILE_TEST_DEBUG_ASSERTIONS=false` drops every `debug_assert!`, as
  // PYTHONOPTIMIZE drops Python's asserts, and a failing `cargo test` passes.
  /^CARGO_PROFILE_/,
  // go: its flags, the toolchain it switches to, and where modules are fetched from unchecked.
  /^(GOFLAGS|GOROOT|GOTOOLCHAIN|GOPROXY|GONOPROXY|GOSUMDB|GONOSUMDB|GONOSUMCHECK|GOPRIVATE|GOINSECURE)$/,
  // A C toolchain chosen by variable (cgo, make's implicit rules, node-gyp), and flags that load
  // compiler plugins or link other objects.
  /^(CC|CXX|CPP|LD|AR|AS|FC|CGO_[A-Z]+|CFLAGS|CXXFLAGS|CPPFLAGS|LDFLAGS|LDLIBS)$/,
  /^PERL5?(OPT|LIB)$/,
  // Test::Harness and prove: the perl each test file runs under, and switches added to it
  // (`-MPass` loading a module that prints a passing plan and exits).
  /^HARNESS_PERL(_SWITCHES)?$/,
  /^RUBY(OPT|LIB)$/,
  // Ruby: bundler's settings (the Gemfile it loads, where gems come from) and where gems are found.
  /^BUNDLE_/,
  /^(GEM_HOME|GEM_PATH)$/,
  // Which tests run: rake's test task reads the files from TEST and the runner's options from
  // TESTOPTS (`--name=/passing/`), rspec its options from SPEC_OPTS (`--example passing`) and
  // its rake task the files from SPEC.
  /^(TEST|TESTOPTS|SPEC|SPEC_OPTS)$/,
  // The JVM a build's wrapper script starts (gradlew and mvnw run $JAVA_HOME/bin/java), its
  // options (an agent), and classes found first.
  /^(JAVA_HOME|JAVA_OPTS|CLASSPATH|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS)$/,
  /^(MAVEN_OPTS|MAVEN_ARGS|MAVEN_HOME|M2_HOME|GRADLE_OPTS|SBT_OPTS|ANT_OPTS)$/,
  /^(DOTNET_STARTUP_HOOKS|CORECLR_ENABLE_PROFILING|COR_ENABLE_PROFILING)$/,
  /^(DOTNET_ROOT|DOTNET_ADDITIONAL_DEPS|DOTNET_SHARED_STORE)$/,
  // The package managers corepack downloads and runs, and from where.
  /^COREPACK_/,
  // Lua: code run at start, and where `require` finds modules, as NODE_PATH and PYTHONPATH.
  /^(PHPRC|PHP_INI_SCAN_DIR|LUA_(INIT|PATH|CPATH)(_5_\d)?)$/,
  // TypeScript run in place: ts-node's `TS_NODE_TRANSPILE_ONLY` skips the type check a test run
  // fails on, and its (and tsx's) project and compiler options map imports to other files.
  /^(TS_NODE_.+|TSX_TSCONFIG_PATH)$/,
  // go: a workspace file whose `replace` lines put other folders in place of the modules tested.
  /^GOWORK$/,
  // Ruby: a Gemfile rubygems loads into every ruby it starts.
  /^RUBYGEMS_GEMDEPS$/,
  // Erlang and Elixir: emulator flags (`-eval`, `-s` run code), where modules are found, and the
  // project file mix reads in place of mix.exs.
  /^(ERL_(AFLAGS|ZFLAGS|FLAGS|LIBS)|ELIXIR_ERL_OPTIONS|MIX_EXS)$/,
  // R runs its profile files at start; Julia finds its packages and project by these.
  /^R_(PROFILE|PROFILE_USER|ENVIRON|ENVIRON_USER|LIBS|LIBS_USER|LIBS_SITE)$/,
  /^JULIA_(LOAD_PATH|DEPOT_PATH|PROJECT)$/,
  // OpenSSL's configuration loads providers and engines (shared objects) into any program that
  // starts it: python's ssl and hashlib, curl, git over https.
  /^OPENSSL_(CONF|MODULES|ENGINES)$/,
  // CMake runs the toolchain file named here as its own code.
  /^CMAKE_TOOLCHAIN_FILE$/,
  // Not pip's and uv's package indexes (PIP_INDEX_URL, PIP_FIND_LINKS…): a machine kept offline
  // names its wheels there, and what pip installed before the check is as much the caller's.
];

/**
 * The environment for a child: the base minus every cairn credential and PATH's relative folders
 * (`absolutePath`), plus `extra`, marked with the boards it is started for (this process's own
 * marks, whatever the base, and the board it serves; see started-for.ts).
 */
export function childEnv(
  base: NodeJS.ProcessEnv = process.env,
  extra: Readonly<Record<string, string>> = {},
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const name of CREDENTIAL_VARIABLES) delete env[name];
  for (const name of Object.keys(env)) if (/^CAIRN_.*TOKEN/.test(name)) delete env[name];
  if (env.PATH !== undefined) env.PATH = absolutePath(env.PATH);
  // CAIRN_STORE_URL is cairn's own; a password in it (accepted in memory) is cairn's to hold. A
  // child with no token of its own is refused the board anyway, so it needs no way in. So is
  // PGPASSWORD while this process serves a board on PostgreSQL: it is then the store's password.
  // On a SQLite board it is nobody's but the user's (a test suite's database) and passes.
  if (env.CAIRN_STORE_URL) env.CAIRN_STORE_URL = urlWithoutPassword(env.CAIRN_STORE_URL);
  for (const name of storeCredentialVariables()) delete env[name];
  // A relative CAIRN_DIR (or CAIRN_HOME) names a workspace from this process's directory; a
  // child started elsewhere (a shortcut or check at the workspace root) would read another one.
  for (const name of ["CAIRN_DIR", "CAIRN_HOME"]) {
    const value = env[name];
    if (value && !isAbsolute(value)) env[name] = resolve(value);
  }
  const marked: NodeJS.ProcessEnv = { ...env, ...extra };
  // Applied last: no caller's variables can unmark a child.
  const boards = new Set(boardsStartedFor(process.env));
  const served = servedBoard();
  if (served !== undefined) boards.add(served);
  if (boards.size > 0) marked[STARTED_FOR_VARIABLE] = JSON.stringify([...boards]);
  else delete marked[STARTED_FOR_VARIABLE];
  return marked;
}

/**
 * The environment of a check (an evaluator, a verify command, the definition of done): a child's,
 * minus every variable that injects code into what it runs (`INJECTING`).
 */
export function checkEnv(
  base: NodeJS.ProcessEnv = process.env,
  extra: Readonly<Record<string, string>> = {},
): NodeJS.ProcessEnv {
  const env = childEnv(base, extra);
  for (const name of Object.keys(env)) if (INJECTING.some((rule) => rule.test(name))) delete env[name];
  return env;
}
