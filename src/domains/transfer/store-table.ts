import { parse as parseToml } from "smol-toml";
import { usageError } from "../../kernel/outcome.js";
import { namesStore } from "../workspace/discover.js";
import { STORE_COMMENT } from "../workspace/init.js";

/**
 * The import made a local SQLite store: an exported `store` setting (the source's PostgreSQL
 * server) must not come along, or the restored workspace would open the source's shared store.
 * The `[store]` table and `store = …` / `store.… = …` lines go; anything that still names a
 * store afterwards (a form this cannot cut out) refuses the import rather than restore a
 * workspace that opens someone's server.
 */

/** Whether the text reads as TOML at all. */
const parses = (toml: string) => {
  try {
    parseToml(toml);
    return true;
  } catch {
    return false;
  }
};

const STORE_HEADER = /^[ \t]*\[[ \t]*["']?store["']?[ \t]*[\].][^\n]*\n?/gm;
const NOT_BLANK = /\S/g;

/**
 * Where a table whose lines start at `from` ends: at the line start from which the next
 * character that is not a blank (on this line or a later one) opens a header. So the blank lines
 * just before the next header stay. The look ahead is made once per run of blank lines, not once
 * from each of them (the pattern `(?!\s*\[)` at every line start took 21 s for 100 000 blank
 * lines, hours at megabytes).
 */
function tableEnd(text: string, from: number): number {
  let next = -1;
  let at = from;
  while (at < text.length) {
    if (next < at) {
      NOT_BLANK.lastIndex = at;
      next = NOT_BLANK.exec(text)?.index ?? text.length;
    }
    if (text[next] === "[") return at;
    const newline = text.indexOf("\n", at);
    at = newline === -1 ? text.length : newline + 1;
  }
  return at;
}

/** The text without its `[store]` and `[store.…]` tables, each from its header to the next header. */
export function withoutStoreTables(config: string): string {
  let out = "";
  let kept = 0;
  STORE_HEADER.lastIndex = 0;
  for (let found = STORE_HEADER.exec(config); found; found = STORE_HEADER.exec(config)) {
    const end = tableEnd(config, found.index + found[0].length);
    out += config.slice(kept, found.index);
    kept = end;
    STORE_HEADER.lastIndex = end;
  }
  return out + config.slice(kept);
}

export function withoutStoreTable(config: string): string {
  const withoutTables = withoutStoreTables(config);
  // `store = …` is the top level's only before the first table header; below one it is that table's.
  const header = /^[ \t]*\[/m.exec(withoutTables)?.index ?? withoutTables.length;
  let cut =
    withoutTables.slice(0, header).replace(/^[ \t]*["']?store["']?[ \t]*[.=][^\n]*\n?/gm, "") +
    withoutTables.slice(header);
  // The comment an earlier version wrote above its [store] table stays behind when the table goes.
  cut = cut.replaceAll(STORE_COMMENT, "");
  if (namesStore(cut) || (parses(config) && !parses(cut))) {
    throw usageError(
      "import: the export's cairn.toml names a shared store in a form that cannot be cut out",
      "edit the export's cairn.toml record to remove its store setting, then import again",
    );
  }
  return cut;
}
