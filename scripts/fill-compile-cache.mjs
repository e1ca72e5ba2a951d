/**
 * Fills Node's module compile cache (Node 22.1+: the folder NODE_COMPILE_CACHE names) with the
 * bundled service's modules, when the image is built, so that a new instance reads V8's compiled
 * code instead of compiling ~1,000 module files again (docs/operations.md, "Cold start"):
 *
 *   NODE_COMPILE_CACHE=/app/.node-cache node scripts/fill-compile-cache.mjs dist/service
 *
 * Run it where the service runs from, with the runtime's Node version, NODE_OPTIONS and user: the
 * cache is kept per Node version, V8 flags and user, by absolute paths (the image fills it at the
 * paths it runs from; NODE_COMPILE_CACHE_PORTABLE would be needed only to move it).
 * It imports every module of the bundle but its entry (which starts the server), then the packages
 * the bundle (entry included) loads on demand (`import("…")`: the storage drivers, the HTTP server), and writes
 * the cache. Importing runs only the modules' top-level code: nothing listens or connects.
 */
import fs from "node:fs";
import module from "node:module";
import path from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";

const dir = path.resolve(process.argv[2] ?? "dist/service");
const entry = "start.js";
if (!module.getCompileCacheDir()) {
  process.stderr.write("fill-compile-cache: NODE_COMPILE_CACHE is not set (or the cache is disabled)\n");
  process.exit(1);
}
const files = fs.readdirSync(dir).filter((file) => file.endsWith(".js"));
const packages = new Set();
for (const file of files) {
  for (const match of fs.readFileSync(path.join(dir, file), "utf8").matchAll(/\bimport\("([^"./][^"]*)"\)/g)) packages.add(match[1]);
}
const chunks = files.filter((file) => file !== entry);
for (const chunk of chunks) await import(pathToFileURL(path.join(dir, chunk)).href);
const missing = [];
for (const name of [...packages].sort()) {
  // Resolved from this script's folder: the image's /app/node_modules, as the service's are.
  await import(name).catch(() => missing.push(name));
}
module.flushCompileCache();
const cacheDir = module.getCompileCacheDir();
const cached = fs.readdirSync(cacheDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
process.stdout.write(`${JSON.stringify({ cache: cacheDir, modules: chunks.length, packages: packages.size, not_installed: missing, files: cached })}\n`);
process.exit(0);
