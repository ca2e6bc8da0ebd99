/**
 * Part of `npm run build`: record which domains hold each first CLI word, into
 * dist/cli-words.json, so `cairn <word> ...` evaluates only those domains' modules.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI_WORDS_FILE, cliWordMap } from "../src/commands/cli-table.js";
import { DOMAINS } from "../src/commands/registry.js";

writeFileSync(join(process.argv[2] ?? "dist", CLI_WORDS_FILE), JSON.stringify(cliWordMap(DOMAINS)));
