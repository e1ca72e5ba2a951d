import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createTempDatabase } from "./support/postgres.js";

/**
 * The package as a user gets it: `npm pack` (whose prepack builds dist/), `npm install` of the
 * tarball into a new project, tsc over that project, and every ```ts example of README.md and
 * docs/library.md compiled and run against the installed package — so the docs and the package
 * cannot drift apart.
 */
const ROOT = path.resolve(import.meta.dirname, "..");
const manifest = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { name: string; exports: Record<string, unknown> };
const exampleCode = ["README.md", "docs/library.md"].flatMap((file) => [...readFileSync(path.join(ROOT, file), "utf8").matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? ""));
const examples = [...new Set(exampleCode)].map((code, i) => ({ name: `example-${i + 1}`, code }));
const typesNodeVersion = (JSON.parse(readFileSync(path.join(ROOT, "node_modules/@types/node/package.json"), "utf8")) as { version: string }).version;
const tsc = path.join(ROOT, "node_modules/typescript/bin/tsc");
const exec = promisify(execFile);
/** Storage drivers: importing the reducers (or the package root) must load none of them. */
const ENGINES = /^(better-sqlite3|pg|redis|@langchain\/langgraph-checkpoint-postgres)(\/|$)/;

const timings: Record<string, number> = {};
let project = "";
let tarballFiles: string[] = [];
let database: Awaited<ReturnType<typeof createTempDatabase>> | undefined;

async function sh(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }) {
  return exec(command, args, { cwd: options.cwd, env: options.env ?? process.env, maxBuffer: 64 * 1024 * 1024 });
}

async function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    timings[label] = Math.round(performance.now() - started);
  }
}

/** The environment the examples run in: no model configured, a throw-away Postgres database. */
function exampleEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: database?.url };
  for (const key of ["OPENAI_API_KEY", "OPENAI_BASE_URL", "LOG_LEVEL", "LANGSMITH_TRACING", "MEMORY_BACKEND", "SQLITE_PATH"]) delete env[key];
  return env;
}

/** A folder holding this checkout's better-sqlite3 binary packed as its prebuild-install tarball. */
function localPrebuilds(): string {
  const dir = path.join(project, "prebuilds");
  mkdirSync(dir);
  const module = path.join(ROOT, "node_modules/better-sqlite3");
  const { version } = JSON.parse(readFileSync(path.join(module, "package.json"), "utf8")) as { version: string };
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  if (existsSync(path.join(module, "build/Release/better_sqlite3.node"))) {
    execFileSync("tar", ["-czf", path.join(dir, name), "-C", module, "build/Release/better_sqlite3.node"]);
  }
  return dir;
}

beforeAll(async () => {
  project = mkdtempSync(path.join(os.tmpdir(), "mg-package-"));
  await timed("pack_ms", () => sh("npm", ["pack", "--pack-destination", project], { cwd: ROOT }));
  const tarball = readdirSync(project).find((file) => file.endsWith(".tgz"));
  if (!tarball) throw new Error(`npm pack left no tarball in ${project}`);
  tarballFiles = (await sh("tar", ["-tzf", tarball], { cwd: project })).stdout.split("\n").filter(Boolean);

  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "uses-memory-graph", private: true, type: "module" }, null, 2));
  writeFileSync(
    path.join(project, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        skipLibCheck: true,
        outDir: "out",
        types: ["node"],
      },
      include: ["examples"],
    }),
  );
  mkdirSync(path.join(project, "examples"));
  for (const example of examples) writeFileSync(path.join(project, "examples", `${example.name}.ts`), example.code);
  // Type-checked with the examples, never run: a misspelt turn field does not compile.
  writeFileSync(
    path.join(project, "examples", "typed-turn.ts"),
    [
      'import { createMemoryGraph } from "memory-graph";',
      "export async function misspelt(): Promise<void> {",
      '  const memory = await createMemoryGraph({ backend: "memory" });',
      "  // @ts-expect-error `mesage` is not a field of a turn",
      '  await memory.runTurn({ tenantId: "t", userId: "u", sessionId: "s", mesage: "hi" });',
      '  await memory.runTurn({ tenantId: "t", userId: "u", sessionId: "s", message: "hi", useMemory: false });',
      "}",
      "",
    ].join("\n"),
  );
  writeFileSync(path.join(project, "no-engines.mjs"), 'import { register } from "node:module";\nregister("./no-engines-hooks.mjs", import.meta.url);\n');
  writeFileSync(
    path.join(project, "no-engines-hooks.mjs"),
    `export async function resolve(specifier, context, next) {\n  if (${ENGINES.toString()}.test(specifier)) throw new Error("storage driver loaded: " + specifier);\n  return next(specifier, context);\n}\n`,
  );

  // A real install: dependencies from the registry (the local cache first), better-sqlite3's
  // install script included. Its binary comes from this checkout's own build, offered as a local
  // prebuild (prebuild-install's `npm_config_<package>_local_prebuilds`), which it loads to check
  // before it takes it; with another version or none it compiles from source (~3 min on 2 cores).
  const env = { ...process.env, npm_config_nodedir: "/usr", npm_config_better_sqlite3_local_prebuilds: localPrebuilds() };
  await timed("install_ms", () =>
    sh("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", `./${tarball}`, `@types/node@${typesNodeVersion}`], { cwd: project, env }),
  );
  database = await createTempDatabase();
}, 20 * 60_000);

afterAll(async () => {
  await database?.drop();
  process.stderr.write(`package.slow.test timings: ${JSON.stringify(timings)}\n`);
  if (project) rmSync(project, { recursive: true, force: true });
});

describe("the package installed from its tarball", () => {
  it("ships the compiled code and types of every export, and no sources or tests", () => {
    const files = new Set(tarballFiles.map((file) => file.replace(/^package\//, "")));
    expect(files.has("README.md")).toBe(true);
    // The inspector's page ships in the package (served from it, offline).
    for (const file of ["inspector/index.html", "inspector/inspector.js", "inspector/inspector-ui.js", "inspector/inspector-views.js", "inspector/inspector-entities.js", "inspector/inspector.css"]) expect(files, file).toContain(file);
    expect([...files].filter((file) => /^(src|test|bench|scripts)\//.test(file))).toEqual([]);
    const targets = Object.values(manifest.exports).flatMap((entry) => (typeof entry === "string" ? [entry] : Object.values(entry as Record<string, string>)));
    for (const target of targets) expect(files, target).toContain(target.replace(/^\.\//, ""));
    expect(Object.keys(manifest.exports)).toEqual(expect.arrayContaining([".", "./reducers", "./sqlite", "./postgres", "./redis", "./retention"]));
  });

  it("exports what each subpath promises", async () => {
    const script = `const names = {};
for (const sub of ${JSON.stringify(Object.keys(manifest.exports).filter((key) => key !== "./package.json"))}) {
  names[sub] = Object.keys(await import(sub === "." ? "memory-graph" : "memory-graph" + sub.slice(1)));
}
console.log(JSON.stringify(names));`;
    const { stdout } = await sh(process.execPath, ["--input-type=module", "-e", script], { cwd: project });
    const names = JSON.parse(stdout) as Record<string, string[]>;
    expect(names["."]).toEqual(expect.arrayContaining(["createMemoryGraph", "buildGraph", "compileGraph", "createStateAnnotation", "MemoryGraphError", "setLogger"]));
    expect(names["./reducers"]).toEqual(expect.arrayContaining(["appendAndTrim", "trimWindow", "mergeNodeMemory", "applyEventRetention"]));
    expect(names["./sqlite"]).toEqual(expect.arrayContaining(["openSqlite", "SqliteStore", "SqliteCheckpointer", "sqliteTurnLock"]));
    expect(names["./postgres"]).toEqual(expect.arrayContaining(["openPostgres", "PostgresStore", "PostgresCheckpointer", "postgresTurnLock"]));
    expect(names["./redis"]).toEqual(expect.arrayContaining(["RedisCheckpointer", "redisTurnLock"]));
    expect(names["./retention"]).toEqual(expect.arrayContaining(["forgetUser", "forgetSession", "collectGarbage"]));
    expect(names["./client"]).toEqual(["MemoryGraphApiError", "createMemoryGraphClient"]);
    expect(names["./agent"]).toEqual(expect.arrayContaining(["memoryMiddleware", "MEMORY_TOOLS"]));
  });

  it.each(["memory-graph/reducers", "memory-graph", "memory-graph/client"])("imports %s without loading a storage driver", async (specifier) => {
    const importing = (what: string) =>
      sh(process.execPath, ["--import", "./no-engines.mjs", "--input-type=module", "-e", `await import(${JSON.stringify(what)});`], { cwd: project });
    await expect(importing(specifier)).resolves.toBeDefined();
    // The guard itself works: the SQLite entry does load its driver.
    await expect(importing("memory-graph/sqlite")).rejects.toThrow(/storage driver loaded: better-sqlite3/);
  });

  it("type-checks the examples of README.md and docs/library.md against the installed types", async () => {
    expect(examples.length).toBeGreaterThanOrEqual(3);
    await timed("tsc_ms", () => sh(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: project }));
  }, 180_000);

  it.each(examples)("runs the docs' $name", async ({ name, code }) => {
    const { stdout, stderr } = await timed(`${name}_ms`, () => sh(process.execPath, [`out/${name}.js`], { cwd: project, env: exampleEnv() }));
    expect(stderr).toBe("");
    // An example that hands the graph a logger shows that our log lines go there, not to stdout.
    if (/\blogger\b/.test(code)) expect(stdout).not.toMatch(/^\{"severity"/m);
  }, 120_000);

  it("writes no log line into its host's output by default, and JSON lines with LOG_LEVEL=info", async () => {
    const first = examples[0]?.name ?? "";
    const quiet = await sh(process.execPath, [`out/${first}.js`], { cwd: project, env: exampleEnv() });
    expect(quiet.stdout).not.toMatch(/"severity"/);
    expect(quiet.stdout).toContain("OK");
    const logged = await sh(process.execPath, [`out/${first}.js`], { cwd: project, env: { ...exampleEnv(), LOG_LEVEL: "info" } });
    expect(logged.stdout).toMatch(/^\{"severity":"INFO".*"event":"persistence_opened"/m);
  }, 120_000);
});
