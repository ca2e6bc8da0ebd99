const SHIM = new URL("./fs.mjs", import.meta.url).href;

export async function resolve(specifier, context, next) {
  if ((specifier === "fs" || specifier === "node:fs") && context.parentURL?.includes("/conformance/dist/")) {
    return { url: SHIM, shortCircuit: true };
  }
  return next(specifier, context);
}
