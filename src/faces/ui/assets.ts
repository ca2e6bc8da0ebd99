import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The built front end (`dist/ui/`, written by scripts/build.mjs): `index.html`, never cached,
 * and assets whose names carry their content hash, cached for good.
 */

/** Where index.html names the launch's path prefix (scripts/build-ui.mjs writes it). */
const BASE_MARK = "{{base}}";

export interface Asset {
  body: Buffer;
  type: string;
  immutable: boolean;
}

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".map": "application/json",
};

/** dist/ui next to the running bundle (dist/ or dist/chunks/), else the repository's build. */
function findUiDir(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 5; depth++) {
    for (const candidate of [join(dir, "ui"), join(dir, "dist", "ui")]) {
      if (existsSync(join(candidate, "index.html"))) return candidate;
    }
    dir = dirname(dir);
  }
  return undefined;
}

export interface Assets {
  index: Buffer;
  get(name: string): Asset | undefined;
}

/** The front end, its index.html pointing at assets under `base` (this launch's prefix). */
export function loadAssets(base: string): Assets {
  const dir = findUiDir();
  if (!dir) throw new Error("the dashboard's front end is not built: run `npm run build`");
  const files = new Map<string, Asset>();
  for (const name of readdirSync(join(dir, "assets"))) {
    files.set(name, {
      body: readFileSync(join(dir, "assets", name)),
      type: TYPES[extname(name)] ?? "application/octet-stream",
      immutable: /\.[0-9A-Z]{8}\.(js|css)$/i.test(name),
    });
  }
  const index = Buffer.from(readFileSync(join(dir, "index.html"), "utf8").replaceAll(BASE_MARK, base));
  return { index, get: (name) => files.get(name) };
}
