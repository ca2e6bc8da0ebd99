import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AnyCommand } from "./define.js";
import type { CommandDomain } from "./domain.js";
import { DOMAIN_LOADERS } from "./domain-loaders.js";

/** Written by the build next to the bundle: each first CLI word → the domains that hold it. */
export const CLI_WORDS_FILE = "cli-words.json";

export type CliWordMap = Record<string, string[]>;

/** The part of the command table one CLI invocation can reach, with its groups' summaries. */
export interface CliTable {
  commands: readonly AnyCommand[];
  groups: Readonly<Record<string, string>>;
}

/** Which domains declare a command, or a group summary, under each first word. */
export function cliWordMap(domains: readonly CommandDomain[]): CliWordMap {
  const map: CliWordMap = {};
  const note = (word: string, domain: string) => {
    if (!Object.hasOwn(map, word)) map[word] = [];
    const names = map[word] as string[];
    if (!names.includes(domain)) names.push(domain);
  };
  for (const domain of domains) {
    for (const command of domain.commands) note(command.name.split(" ")[0] as string, domain.name);
    for (const group of Object.keys(domain.groups)) note(group, domain.name);
  }
  return map;
}

function builtWordMap(): CliWordMap | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(import.meta.dirname, CLI_WORDS_FILE), "utf8"));
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined;
    for (const names of Object.values(parsed)) {
      if (!Array.isArray(names) || !names.every((name) => typeof name === "string")) return undefined;
    }
    return parsed as CliWordMap;
  } catch {
    return undefined; // run from source, or a damaged install: the whole table still answers
  }
}

async function wholeTable(): Promise<CliTable> {
  const { COMMANDS, GROUP_SUMMARIES } = await import("./registry.js");
  return { commands: COMMANDS, groups: GROUP_SUMMARIES };
}

/**
 * The commands `cairn <argv>` can reach: those under its first word, loading only the domains
 * the build's word map names for it. Root help, a word the map does not know (a misspelling
 * the parser then suggests a fix for) or a missing map get the whole table, so what the parser
 * accepts and prints never depends on the map.
 */
export async function cliTableFor(argv: readonly string[]): Promise<CliTable> {
  const word = argv[0];
  if (word === "-V" || word === "--version") return { commands: [], groups: {} };
  const map = word === undefined ? undefined : builtWordMap();
  if (map === undefined || word === undefined || !Object.hasOwn(map, word)) return wholeTable();
  const loaders = (map[word] as string[]).map((name) => DOMAIN_LOADERS[name]);
  if (loaders.length === 0 || loaders.some((load) => load === undefined)) return wholeTable();
  const domains = await Promise.all(loaders.map((load) => (load as () => Promise<CommandDomain>)()));
  const commands = domains.flatMap((domain) => domain.commands).filter((c) => c.name.split(" ")[0] === word);
  // A map from another build that sends the word to a domain without it: answer from the whole table.
  if (commands.length === 0) return wholeTable();
  return { commands, groups: Object.assign({}, ...domains.map((domain) => domain.groups)) };
}
