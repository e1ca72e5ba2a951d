import { execFile, execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

/**
 * What importing the package costs a process, counted in module files (issue 34): the package is
 * compiled as `npm pack` compiles it (tsconfig.build.json) into a temporary folder beside this
 * checkout's node_modules, and each of its entries is imported by a child process that counts the
 * files it loads (test/support/count-modules.mjs). The root stays light — the language tools
 * (compromise, chrono-node, libphonenumber-js) and the OpenAI client load when something needs them —
 * and no subpath grows heavier than it was.
 */
const ROOT = path.resolve(import.meta.dirname, "..");
const run = promisify(execFile);

interface Count {
  files: number;
  own: number;
  packages: Record<string, number>;
}

/**
 * Each subpath's files before issue 34 (commit ab4bd50, Node 20): all of them, and those of its
 * dependencies (outside node_modules: the package's own). `@langchain/langgraph` alone opened 583.
 */
const BEFORE: Record<string, { files: number; dependencies: number }> = {
  "memory-graph/reducers": { files: 592, dependencies: 584 },
  "memory-graph/client": { files: 6, dependencies: 1 },
  "memory-graph/sqlite": { files: 578, dependencies: 520 },
  "memory-graph/postgres": { files: 592, dependencies: 543 },
  "memory-graph/redis": { files: 1175, dependencies: 1155 },
  "memory-graph/retention": { files: 527, dependencies: 507 },
};
/**
 * Room for the package's own small files as features land; a new dependency is what makes an entry
 * heavy. 12 since the entity graph's import and export (issue 33): forgetting a user, which
 * memory-graph/retention carries, reaches its schema and model-extraction files (3 small files);
 * 14 since the reply's vector is written after the answer (issue 34): each store's
 * deferred-vectors file and what it reads; 16 since recall weighs what seldom answers a question
 * about a person less (issue 33): the ranking's answer-order file, and its options in a file of
 * their own (hybrid.ts would have passed 300 lines); 17 since recall snapshots are read lazily
 * (issue 34): the varint reader and writer the snapshot's bytes are read with when first needed; 18
 * since a warm Postgres search reads the change feed with the page's rows in one statement (issue
 * 33): the feed in a file of its own (index-cache.ts would have passed 300 lines); 19 since the
 * ranking asks which of a question's terms a document holds by term number (issue 34): a
 * document's term readers in a file of their own (recall-index.ts would have passed 300 lines).
 */
const OWN_FILES_SLACK = 19;
/** Node versions count a package's files a little differently (Node 26 sees two more of pg's than Node 20). */
const NODE_VERSION_SLACK = 1.01;
const LANGUAGE_TOOLS = ["compromise", "chrono-node", "libphonenumber-js"];
const OPENAI = ["openai", "@langchain/openai"];

let dir = "";

async function count(specifier: string, mode?: "turn" | "model"): Promise<Count> {
  const args = [path.join(dir, "count-modules.mjs"), specifier, ...(mode ? [mode] : [])];
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: "silent" };
  for (const key of ["OPENAI_API_KEY", "OPENAI_BASE_URL", "LANGSMITH_TRACING", "OTEL_EXPORTER_OTLP_ENDPOINT"]) delete env[key];
  const { stdout } = await run(process.execPath, args, { cwd: dir, env, maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout.trim().split("\n").at(-1) ?? "") as Count;
}

const dependencies = (counted: Count) => counted.files - counted.own;
const loaded = (counted: Count, names: readonly string[]) => names.filter((name) => (counted.packages[name] ?? 0) > 0);

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "mg-package-weight-"));
  // The package as it resolves itself ("memory-graph/…" through its own exports), over this checkout's dependencies.
  copyFileSync(path.join(ROOT, "package.json"), path.join(dir, "package.json"));
  copyFileSync(path.join(ROOT, "test/support/count-modules.mjs"), path.join(dir, "count-modules.mjs"));
  symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"), "dir");
  execFileSync(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", path.join(ROOT, "tsconfig.build.json"), "--outDir", path.join(dir, "dist")]);
}, 180_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("the module files each entry of the package loads", () => {
  it("the root loads at most 1.3x the files of @langchain/langgraph, none of the language tools or the OpenAI client", async () => {
    const [root, langgraph] = await Promise.all([count("memory-graph"), count("@langchain/langgraph")]);
    process.stderr.write(`package-weight: memory-graph ${root.files} files (${root.own} own), @langchain/langgraph ${langgraph.files}\n`);
    expect(loaded(root, [...LANGUAGE_TOOLS, ...OPENAI])).toEqual([]);
    expect(root.files).toBeLessThanOrEqual(Math.floor(1.3 * langgraph.files));
  }, 60_000);

  it.each(Object.keys(BEFORE))("%s is no heavier than before", async (specifier) => {
    const before = BEFORE[specifier]!;
    const now = await count(specifier);
    expect(dependencies(now), "files of its dependencies").toBeLessThanOrEqual(Math.ceil(before.dependencies * NODE_VERSION_SLACK));
    expect(now.own, "the package's own files").toBeLessThanOrEqual(before.files - before.dependencies + OWN_FILES_SLACK);
  }, 60_000);

  it("a turn without a model loads the language tools it needs and not the OpenAI client; a model configured loads it", async () => {
    const [offline, withModel] = await Promise.all([count("memory-graph", "turn"), count("memory-graph", "model")]);
    // The turn's message names a person and a place: the English tagger reads it.
    expect(loaded(offline, LANGUAGE_TOOLS)).toContain("compromise");
    expect(loaded(offline, OPENAI)).toEqual([]);
    expect(loaded(withModel, OPENAI)).toContain("@langchain/openai");
  }, 60_000);
});
