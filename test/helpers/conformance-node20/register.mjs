// The conformance CLI imports `globSync` from "fs" (Node 22+) for its tier report only; the
// server scenarios never call it. On Node 20 its "fs" resolves to fs.mjs here: node:fs plus a
// globSync that says why it is missing. Loaded with `node --import`.
import { register } from "node:module";

register("./hooks.mjs", import.meta.url);
