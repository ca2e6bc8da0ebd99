// The dashboard's front end (ui/): Preact + htm and plain CSS, bundled for the browser into
// dist/ui/assets with content-hashed names, and an index.html that names them. No CDN, nothing
// inline (the page's CSP allows scripts and styles from its own origin only). index.html names
// its assets under {{base}}, which the server fills in with the launch's path prefix.
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { build } from "esbuild";

export async function buildUi() {
  const out = "dist/ui/assets";
  mkdirSync(out, { recursive: true });
  const result = await build({
    entryPoints: { app: "ui/main.ts", style: "ui/style.css" },
    outdir: out,
    entryNames: "[name].[hash]",
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    metafile: true,
    legalComments: "none",
    logLevel: "warning",
  });
  const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
  const script = outputs.find((name) => name.startsWith("app.") && name.endsWith(".js"));
  const style = outputs.find((name) => name.startsWith("style.") && name.endsWith(".css"));
  copyFileSync("ui/favicon.svg", `${out}/favicon.svg`);
  writeFileSync(
    "dist/ui/index.html",
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>cairn</title>
<link rel="icon" href="{{base}}/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="{{base}}/assets/${style}">
<script type="module" src="{{base}}/assets/${script}"></script>
</head>
<body>
<div id="app"><p>Loading the dashboard…</p></div>
<noscript>The cairn dashboard needs JavaScript; the same views are in the CLI: cairn now, cairn board.</noscript>
</body>
</html>
`,
  );
}
