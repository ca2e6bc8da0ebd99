/**
 * Packs shipped with cairn, in the same TOML format as workspace and CAIRN_HOME packs and parsed
 * by the same code. They live here as text so the bundled program carries them with it.
 */
export const BUILTIN_PACKS: Readonly<Record<string, string>> = {
  node: `
[pack]
name = "node"
description = "Node.js and TypeScript projects"

[[evaluator]]
name = "node-tests"
proof = "tests"
description = "npm test exits 0"
argv = ["npm", "test", "--silent"]
inputs = ["test/**", "tests/**", "__tests__/**", "vitest.config.*", "vitest.workspace.*", "vite.config.*", "jest.config.*", ".mocharc*", "ava.config.*", "babel.config.*", ".babelrc*", "tsconfig*.json"]
applies_when = ["package.json"]

[[evaluator]]
name = "node-typecheck"
proof = "typecheck"
description = "tsc --noEmit is clean"
argv = ["npx", "--no-install", "tsc", "--noEmit", "-p", "."]
inputs = ["tsconfig*.json"]
applies_when = ["tsconfig.json"]

[[evaluator]]
name = "node-lint"
proof = "lint"
description = "npm run lint exits 0"
argv = ["npm", "run", "lint", "--silent"]
inputs = ["biome.json", "biome.jsonc", "eslint.config.*", ".eslintrc*", ".eslintignore", ".prettierrc*", ".prettierignore", "tsconfig*.json"]
applies_when = ["package.json"]

[[evaluator]]
name = "node-coverage"
proof = "coverage"
description = "line coverage percent from c8's text summary"
argv = ["npx", "--no-install", "c8", "--reporter=text-summary", "npm", "test", "--silent"]
inputs = ["package.json", "test/**", "tests/**", "__tests__/**", "vitest.config.*", "vitest.workspace.*", "vite.config.*", "jest.config.*", ".mocharc*", "ava.config.*", "babel.config.*", ".babelrc*", "tsconfig*.json", ".c8rc*", ".nycrc*"]
read = "regex"
pattern = "Lines\\\\s*:\\\\s*([0-9.]+)%"
direction = "higher"
applies_when = ["package.json"]

[[evaluator]]
name = "node-audit"
proof = "security"
description = "npm audit finds nothing high or critical in production dependencies"
argv = ["npm", "audit", "--audit-level=high", "--omit=dev"]
applies_when = ["package-lock.json"]

[[evaluator]]
name = "node-build"
proof = "build"
description = "npm run build exits 0"
argv = ["npm", "run", "build", "--silent"]
applies_when = ["package.json"]
`,
  python: `
[pack]
name = "python"
description = "Python projects"

[[evaluator]]
name = "py-pytest"
proof = "tests"
description = "pytest passes"
argv = ["python3", "-m", "pytest", "-q"]
inputs = ["tests/**", "test/**", "conftest.py", "pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"]
applies_when = ["pyproject.toml", "setup.py", "setup.cfg", "pytest.ini"]

[[evaluator]]
name = "py-ruff"
proof = "lint"
description = "ruff check is clean"
argv = ["ruff", "check", "."]
inputs = ["pyproject.toml", "ruff.toml", ".ruff.toml"]
applies_when = ["pyproject.toml", "ruff.toml", ".ruff.toml"]

[[evaluator]]
name = "py-mypy"
proof = "typecheck"
description = "mypy is clean"
argv = ["mypy", "."]
inputs = ["pyproject.toml", "mypy.ini", ".mypy.ini", "setup.cfg"]
applies_when = ["pyproject.toml", "mypy.ini", "setup.cfg"]
`,
  generic: `
[pack]
name = "generic"
description = "Templates for eval propose: any command's exit code, a number a benchmark prints"

[[evaluator]]
name = "exit-code"
proof = "check"
description = "the command exits 0"
argv = ["COMMAND"]
template = true

[[evaluator]]
name = "benchmark-number"
proof = "latency"
description = "a number the benchmark prints, e.g. '12.5 ms'; the last match counts"
argv = ["COMMAND"]
read = "regex"
pattern = "([0-9]+(?:\\\\.[0-9]+)?)\\\\s*ms"
direction = "lower"
repeats = 5
noisy = true
template = true
`,
};
