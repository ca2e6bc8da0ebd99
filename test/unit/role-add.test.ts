import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { OWNER } from "../../src/domains/identity/actor.js";
import { parseConfig } from "../../src/domains/workspace/config.js";
import { addRole } from "../../src/domains/workspace/roles.js";
import { openStore } from "../../src/store/open.js";
import { scratchDir } from "../helpers/workspace.js";

const at = "2026-05-01T00:00:00.000Z";
const scratch = scratchDir();
afterAll(() => scratch.cleanup());

describe("role add", () => {
  it("keeps every role of calls made at once: each reads cairn.toml under the write lock", async () => {
    const store = await openStore(join(scratch.dir, "cairn.db"), { create: true });
    const config = join(scratch.dir, "cairn.toml");
    writeFileSync(config, '[workspace]\nname = "w"\n');
    try {
      const names = Array.from({ length: 6 }, (_, i) => `r${i}`);
      // Each read the file before taking the lock, and the last rename won: one role of six stayed.
      await Promise.all(names.map((name) => addRole(store, OWNER, config, name, { summary: name }, at)));
      const roles = parseConfig(readFileSync(config, "utf8"), config).roles;
      expect(Object.keys(roles).sort()).toEqual(names);
      // And a name declared meanwhile is a conflict, not a second table that breaks the file.
      await expect(addRole(store, OWNER, config, "r0", {}, at)).rejects.toThrow(/already declared/);
    } finally {
      await store.close();
    }
  });
});
