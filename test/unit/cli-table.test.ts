import { describe, expect, it } from "vitest";
import { cliTableFor, cliWordMap } from "../../src/commands/cli-table.js";
import { DOMAIN_LOADERS } from "../../src/commands/domain-loaders.js";
import { COMMANDS, DOMAINS, GROUP_SUMMARIES } from "../../src/commands/registry.js";

describe("the CLI's lazy command table", () => {
  it("has a loader for every domain of the registry, in the same order, each loading that domain", async () => {
    expect(Object.keys(DOMAIN_LOADERS)).toEqual(DOMAINS.map((domain) => domain.name));
    for (const domain of DOMAINS) expect(await DOMAIN_LOADERS[domain.name]?.()).toBe(domain);
  });

  it("maps every first word to each domain holding a command or a group summary under it", () => {
    const map = cliWordMap(DOMAINS);
    for (const command of COMMANDS) {
      const word = command.name.split(" ")[0] as string;
      const holder = DOMAINS.find((domain) => domain.commands.includes(command));
      expect(map[word]).toContain(holder?.name);
    }
    for (const group of Object.keys(GROUP_SUMMARIES)) expect(map[group]?.length).toBeGreaterThan(0);
  });

  it("falls back to the whole table when no word map was built (a run from source)", async () => {
    const table = await cliTableFor(["status"]);
    expect(table.commands).toBe(COMMANDS);
    expect(table.groups).toBe(GROUP_SUMMARIES);
  });
});
