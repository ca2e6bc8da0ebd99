import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { usageError } from "../../../kernel/outcome.js";
import { readRegularFile } from "../../../kernel/regular-file.js";
import { describeZodIssues } from "../issues.js";
import { BUILTIN_PACKS } from "./builtin-packs.js";
import { type EvaluatorDefinition, EvaluatorPack } from "./definition.js";

/** An evaluator as found in a pack, with where it came from. */
export interface CatalogEntry {
  definition: EvaluatorDefinition;
  /** `builtin:node`, `home:<file>`, `workspace:<file>` or `proposal:EP-3`. */
  source: string;
}

export interface CatalogDirectories {
  /** `.cairn/evaluators` of the workspace. */
  workspace: string;
  /** `$CAIRN_HOME/evaluators`. */
  home: string;
}

/** Parse one pack's text; any fault names the file and the offending field. */
export function parsePack(text: string, file: string): EvaluatorDefinition[] {
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (error) {
    throw usageError(
      `evaluator pack ${file}: not valid TOML: ${(error as Error).message.split("\n")[0]}`,
      "fix the file and retry",
    );
  }
  const parsed = EvaluatorPack.safeParse(raw);
  if (!parsed.success) {
    throw usageError(`evaluator pack ${file}: ${describeZodIssues(parsed.error)}`, "fix the file and retry");
  }
  const seen = new Set<string>();
  for (const definition of parsed.data.evaluator) {
    if (seen.has(definition.name)) {
      throw usageError(`evaluator pack ${file}: evaluator "${definition.name}" is defined twice`);
    }
    seen.add(definition.name);
  }
  return parsed.data.evaluator;
}

/** A pack's text; one that cannot be read (a FIFO in its place, say) is named like a broken one. */
function packText(file: string): string {
  try {
    return readRegularFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw usageError(
      `evaluator pack ${file}: cannot read: ${code === "ENOTREG" ? "not a regular file" : (code ?? (error as Error).message)}`,
      "fix the file and retry",
    );
  }
}

function packFiles(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory)
    .filter((name) => name.endsWith(".toml"))
    .sort()
    .map((name) => join(directory, name));
}

/**
 * Every evaluator cairn can see, by name: built-in packs, then the workspace's
 * `.cairn/evaluators`, then `$CAIRN_HOME/evaluators`; a later layer's evaluator replaces an
 * earlier one of the same name. So a project can tune a shipped evaluator, but not replace the
 * user's own: any agent working in the checkout can write a project pack, and one named like a
 * holdout the user keeps at home would otherwise be what the owner's freeze picks up.
 */
export function loadCatalog(directories: CatalogDirectories): Map<string, CatalogEntry> {
  const catalog = new Map<string, CatalogEntry>();
  for (const [pack, text] of Object.entries(BUILTIN_PACKS)) {
    for (const definition of parsePack(text, `builtin:${pack}`)) {
      catalog.set(definition.name, { definition, source: `builtin:${pack}` });
    }
  }
  const layers: [string, string][] = [];
  if (directories.workspace !== directories.home) layers.push(["workspace", directories.workspace]);
  layers.push(["home", directories.home]);
  for (const [layer, directory] of layers) {
    for (const file of packFiles(directory)) {
      for (const definition of parsePack(packText(file), file)) {
        catalog.set(definition.name, { definition, source: `${layer}:${file}` });
      }
    }
  }
  return catalog;
}
