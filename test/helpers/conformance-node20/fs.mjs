import fs from "node:fs";

export * from "node:fs";
export default fs;
export const globSync =
  fs.globSync ??
  (() => {
    throw new Error("fs.globSync needs Node 22: the conformance tier report is unavailable here");
  });
