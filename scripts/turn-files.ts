/**
 * `npm run turn-files`: which source files one turn's message crosses (issue 20's count).
 *
 * One process: the HTTP app (createServer) on a SQLite file in a temporary folder, no API key
 * (offline responder, local embedder). A warm-up turn runs first so that one-time work (schema,
 * caches, lazy imports) is out of the way. Then:
 *
 *  1. `ran`: a second turn under V8's precise coverage (node:inspector, Profiler), its counters
 *     reset just before the request; every file under src/ one of whose functions was called.
 *  2. `held`: a third turn, its message carrying a marker no earlier turn had. A worker thread
 *     attached to this thread's inspector sets a breakpoint at the start of every function of
 *     step 1; at each stop it looks through the frame's variables (arguments, locals, block and
 *     closure scopes, never module scope or `this`) to three levels of properties, Maps, Sets
 *     and arrays for a string holding the marker. A file counts once one of its functions is
 *     seen holding it: the message (as body, TurnInput, ValidTurn, plan, state, HumanMessage,
 *     record or prompt) passes through it.
 *  3. `path`: `held` without the side roads, the files the message reaches only after it is
 *     stored and answered, or beside the way from the route to the user row's SQL and the
 *     model's prompt: recall and ranking, classification and extraction, summaries, logging
 *     and telemetry (SIDE_ROADS below). That is the figure issue 20's target speaks of.
 *
 * Prints JSON: the counts, by folder, and the file lists. Deterministic for a given tree (no
 * timing in it); `--marker "TWO WORDS"` changes the marker; `--functions`
 * names, per file on the path, the function first seen holding the message.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { createMemoryGraph } from "../src/app/create-memory-graph.js";
import { setLogLevel } from "../src/logger.js";
import { createServer } from "../src/server/create-server.js";
import { WATCHER_SOURCE, type FunctionStart, type WatchReport } from "./turn-files-watcher.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SRC = path.join(ROOT, "src") + path.sep;

/**
 * Where side roads begin (paths under src/): a function that runs in one of these files, or is
 * called (synchronously or across awaits) from one, is off the way from the route to the stored
 * user row and the prompt. What it finds is listed as a side road, not counted.
 */
const SIDE_ENTRIES: readonly RegExp[] = [
  /^graph\/nodes\/(recall|classify-event|summarize)\.ts$/, // recall, classification and extraction, summaries
  /^app\/upkeep\.ts$/, // after the reply and the lock: a session's title and its due summary
  /^rules\/offline-responder\.ts$/, // the model itself (its stand-in without a key): the path ends where it is called
  /^storage\/shared\/checkpoint/, // the session's checkpoint (the window state), not the user's row
];

const marker = (argValue("--marker") ?? "zq7731 kv4409").toLowerCase();
setLogLevel("silent");

const dir = mkdtempSync(path.join(tmpdir(), "turn-files-"));
const memory = await createMemoryGraph({ backend: "sqlite", sqlitePath: path.join(dir, "memory.db"), retry: { retries: 0, baseDelayMs: 1 } });
const app = createServer({ memory });
const turn = async (message: string) => {
  const response = await app.request("/v1/turns", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ user_id: "u1", session_id: "s1", message }),
  });
  if (response.status !== 200) throw new Error(`turn answered ${response.status}: ${await response.text()}`);
  await response.json();
};

try {
  await turn("I live in Porto and I am planning a trip in May, what should I pack?");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false });
  await session.post("Profiler.takePreciseCoverage"); // resets the counters
  await turn("I moved to Lisbon last spring and I am planning a trip in June, what should I pack?");
  const { result } = await session.post("Profiler.takePreciseCoverage");
  await session.post("Profiler.stopPreciseCoverage");
  session.disconnect();

  const starts: FunctionStart[] = [];
  const ran = new Set<string>();
  for (const script of result) {
    const file = sourceFile(script.url);
    if (!file) continue;
    for (const fn of script.functions) {
      const range = fn.ranges[0];
      if (!range || range.count === 0 || range.startOffset === 0) continue;
      ran.add(file);
      starts.push({ scriptId: script.scriptId, offset: range.startOffset, file });
    }
  }
  const held = await filesHolding(starts, () => turn(`I moved to Lisbon last spring (${marker}) and I am planning a trip in June, what should I pack?`));
  const onPath = held.path.sort();
  console.log(
    JSON.stringify(
      {
        message_path_files: onPath.length,
        by_folder: byFolder(onPath),
        path: process.argv.includes("--functions") ? Object.fromEntries(onPath.map((file) => [file, held.firstHolder[file]])) : onPath,
        side_roads: held.sideRoads.sort(),
        files_run: ran.size,
      },
      null,
      2,
    ),
  );
} finally {
  await memory.close();
  rmSync(dir, { recursive: true, force: true });
}

/** Runs `act` with the watcher attached; the files whose functions were seen holding the marker. */
async function filesHolding(starts: FunctionStart[], act: () => Promise<void>): Promise<WatchReport> {
  const root = pathToFileURL(SRC).href;
  const sideEntries = SIDE_ENTRIES.map((entry) => entry.source);
  const watcher = new Worker(WATCHER_SOURCE, { eval: true, workerData: { starts, marker, root, sideEntries } });
  const message = (type: string) =>
    new Promise<WatchReport & { type: string; error?: string }>((resolve) => {
      const take = (data: WatchReport & { type: string; error?: string }) => {
        if (data.type !== type && data.type !== "error") return;
        watcher.off("message", take);
        resolve(data);
      };
      watcher.on("message", take);
    });
  try {
    const ready = await message("ready");
    if (ready.type === "error") throw new Error(ready.error);
    await act();
    const done = message("files");
    watcher.postMessage("done");
    const answer = await done;
    if (answer.type === "error") throw new Error(answer.error);
    return { path: answer.path, sideRoads: answer.sideRoads, firstHolder: answer.firstHolder };
  } finally {
    await watcher.terminate();
  }
}

/** The path under src/ of a script's URL, or null for anything else (packages, tests, this script). */
function sourceFile(url: string): string | null {
  if (!url.startsWith("file:")) return null;
  const file = fileURLToPath(url);
  return file.startsWith(SRC) ? file.slice(SRC.length).split(path.sep).join("/") : null;
}

/** Files per top-level folder (`server`, `graph`, `storage/sqlite`, …). */
function byFolder(files: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const file of files) {
    const parts = file.split("/");
    const folder = parts[0] === "storage" && parts.length > 2 ? `storage/${parts[1]}` : parts.length > 1 ? parts[0]! : ".";
    counts[folder] = (counts[folder] ?? 0) + 1;
  }
  return counts;
}

function argValue(flag: string): string | undefined {
  const at = process.argv.indexOf(flag);
  return at >= 0 ? process.argv[at + 1] : undefined;
}
