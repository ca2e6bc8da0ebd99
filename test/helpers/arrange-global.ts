import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { build } from "esbuild";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    arrangeWorker: string;
  }
}

/**
 * Builds the thread test/helpers/arrange.ts runs commands in, once for the whole run: a worker
 * thread loads plain JavaScript, not the TypeScript vitest serves the suites. It is written inside
 * the repository so that its packages resolve from node_modules as the sources' do.
 */
export default async function setup(project: TestProject) {
  const root = resolve(import.meta.dirname, "../..");
  const dir = join(root, "node_modules", ".cache", "cairn-tests", String(process.pid));
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, "arrange-worker.mjs");
  await build({
    entryPoints: [join(root, "test/helpers/arrange-worker.ts")],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    logLevel: "warning",
  });
  project.provide("arrangeWorker", outfile);
  return () => rmSync(dir, { recursive: true, force: true });
}
