import { stringify } from "smol-toml";
import { replaceFileSync } from "../../kernel/leftovers.js";
import { conflict, operational, refuse, usageError } from "../../kernel/outcome.js";
import { readRegularFile } from "../../kernel/regular-file.js";
import { quoteValue } from "../../kernel/text.js";
import type { Store } from "../../store/store.js";
import type { Actor } from "../identity/actor.js";
import { parseConfig, type RoleConfig } from "./config.js";

/** A role as `role add` takes it: every field of `[roles.NAME]`, each optional. */
export type RoleFields = Partial<RoleConfig>;

/**
 * Declare a role by appending its `[roles.NAME]` table to cairn.toml: the file keeps every
 * comment and line it had, and the result must parse, or nothing is written. Roles are policy
 * (scope, grant, WIP cap, profile), so only the workspace owner declares them; an agent that
 * could would grant itself. Changing a role is an edit of the file, by a person.
 */
export async function addRole(
  store: Store,
  actor: Actor,
  configPath: string,
  name: string,
  fields: RoleFields,
  now: string,
): Promise<RoleConfig> {
  if (!actor.isOwner) {
    throw refuse(
      "identity",
      `${actor.name} cannot declare roles: a role sets scope, grant and limits, so only the workspace owner declares one`,
      "ask the owner to run `cairn role add`, or to edit cairn.toml",
    );
  }
  const declared = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  const table = stringify({ roles: { [name]: declared } });
  // The file is read, checked and replaced under the store's write lock, which every other
  // `role add` takes too: read before it, two at once each appended to the same old text and the
  // last rename dropped the other's role, though both answered ok and journalled it.
  return store.write(async (tx) => {
    let text = "";
    try {
      text = readRegularFile(configPath);
    } catch (error) {
      // No cairn.toml yet: the role starts it. Anything else in its place (a FIFO) is not replaced.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        throw operational(`cannot read ${configPath}: ${(error as Error).message}`);
      }
    }
    const before = parseConfig(text, configPath);
    if (before.roles[name]) {
      throw conflict(`role ${quoteValue(name)} is already declared in ${configPath}`, "edit it there");
    }
    const updated = `${text}${text === "" || text.endsWith("\n") ? "" : "\n"}\n${table}\n`;
    const role = parseConfig(updated, configPath).roles[name];
    if (!role) throw usageError(`role ${quoteValue(name)} could not be declared`);
    await tx.journal.append({ at: now, actor: actor.id, action: "role.add", subject: name, data: declared });
    // Written inside the transaction: a file that cannot be written records nothing.
    replaceFileSync(configPath, updated);
    return role;
  });
}
