// Counts the module files a process opens while it imports a specifier (argv[2]) and, with
// argv[3] = "turn", while it also builds a memory graph on the in-process backend with no model and
// answers one turn; with "model", while it builds one with an OpenAI-compatible model configured
// (at an address never called: no turn is run).
// Run with the package's directory as the working directory. Prints one JSON line:
// { files, own, packages: { name: count } } — `own` are files outside node_modules.
// Every file is seen once: ES modules through a load hook (module.registerHooks where Node has it,
// in this thread, CommonJS included; else module.register's hooks thread, with require.cache for
// CommonJS), joined with require.cache.
import module, { createRequire } from "node:module";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { MessageChannel } from "node:worker_threads";

const files = new Set();
const add = (url) => {
  if (url.startsWith("file:")) files.add(fileURLToPath(url));
};
let collect = async () => {};
if (typeof module.registerHooks === "function") {
  module.registerHooks({
    load(url, context, next) {
      add(url);
      return next(url, context);
    },
  });
} else {
  const { port1, port2 } = new MessageChannel();
  const hooks = `const seen = new Set();
export async function load(url, context, next) { if (url.startsWith("file:")) seen.add(url); return next(url, context); }
export function initialize(port) { port.on("message", () => port.postMessage([...seen])); }`;
  module.register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: port2, transferList: [port2] });
  collect = async () => {
    port1.postMessage("list");
    const urls = await new Promise((resolve) => port1.once("message", resolve));
    for (const url of urls) add(url);
    port1.close();
  };
}

const [specifier, mode] = process.argv.slice(2);
const imported = await import(specifier);
if (mode === "turn") {
  const memory = await imported.createMemoryGraph({ backend: "memory", logger: false });
  const result = await memory.runTurn({ tenantId: "t", userId: "u", sessionId: "s", message: "My name is Anong and I moved to Chiang Mai last month." });
  if (result.status !== "OK") throw new Error(`turn ended ${result.status}`);
  await memory.close();
} else if (mode === "model") {
  const openai = { apiKey: "unused", baseUrl: "http://127.0.0.1:9/v1", model: "gpt-4o-mini", timeoutMs: 1000 };
  await (await imported.createMemoryGraph({ backend: "memory", logger: false, openai })).close();
}
await collect();
for (const file of Object.keys(createRequire(pathToFileURL(`${process.cwd()}/`)).cache)) files.add(file);
const packages = {};
let own = 0;
for (const file of files) {
  const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1];
  if (name) packages[name] = (packages[name] ?? 0) + 1;
  else own += 1;
}
process.stdout.write(`${JSON.stringify({ files: files.size, own, packages })}\n`);
process.exit(0);
