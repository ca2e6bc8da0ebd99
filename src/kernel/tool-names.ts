import { sha256Hex } from "./builtins.js";

/** 64 characters in all, once a client has added its `mcp__cairn__` prefix. */
export const MAX_TOOL_NAME = 64 - "mcp__cairn__".length;

/**
 * A file-backed tool's MCP name from a free-form one: `[A-Za-z0-9_-]` only, at most `max`
 * characters (clients add `mcp__cairn__` and cap the whole at 64). A name that had to be changed
 * or cut carries a short hash of the original, so two different originals never meet in one
 * name. Names are resolved by rebuilding the catalog, never by reversing this.
 */
export function toolName(prefix: string, raw: string, max: number): string {
  const clean = raw
    .replace(/[^A-Za-z0-9_-]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-|-$/g, "");
  const plain = `${prefix}${clean}`;
  if (clean === raw && plain.length <= max && clean !== "") return plain;
  const hash = sha256Hex(raw).slice(0, 6);
  const room = max - prefix.length - hash.length - 1;
  return `${prefix}${clean.slice(0, Math.max(room, 0)).replace(/-$/, "")}${clean ? "-" : ""}${hash}`;
}

/** Assign names in order; a later name that meets an earlier one gets a hash of its origin. */
export function uniqueNames<T>(
  items: readonly T[],
  nameOf: (item: T) => string,
  keyOf: (item: T) => string,
  max: number,
) {
  const taken = new Set<string>();
  return items.map((item) => {
    let name = nameOf(item);
    if (taken.has(name.toLowerCase())) {
      const hash = sha256Hex(keyOf(item)).slice(0, 6);
      name = `${name.slice(0, max - 7)}-${hash}`;
    }
    taken.add(name.toLowerCase());
    return { item, name };
  });
}
