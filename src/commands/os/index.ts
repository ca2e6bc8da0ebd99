import type { CommandDomain } from "../domain.js";
import { osCatalog } from "./catalog.js";
import { osList, osRun } from "./commands.js";

/** Local binaries a machine's operator publishes to models, through an allowlist. */
export const osDomain: CommandDomain = {
  name: "os",
  commands: [osList, osRun],
  tools: [],
  groups: { os: "Allowlisted local binaries, as the machine's [os] configuration publishes them" },
  catalog: osCatalog,
};
