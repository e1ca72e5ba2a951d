/**
 * The worker of scripts/turn-files.ts, as source for `new Worker(…, { eval: true })` (plain
 * JavaScript: a worker started from a string is not compiled by tsx). It attaches to the main
 * thread's inspector (`connectToMainThread`), sets a breakpoint at the start of every function it
 * is given, and at each stop asks the paused frame's scopes whether a value in them holds the
 * marker; a file is reported once one of its functions is seen holding it (its breakpoints are
 * then removed). The main thread posts "done"; the worker answers { type: "files", files }.
 */

/** The files seen holding the marker: on the path, and only on side roads. */
export interface WatchReport {
  path: string[];
  sideRoads: string[];
  /** Per file on the path, the function first seen holding the marker. */
  firstHolder: Record<string, string>;
}

/** A function to watch: its script (V8's id), the offset where it starts, and its file under src/. */
export interface FunctionStart {
  scriptId: string;
  offset: number;
  file: string;
}

export const WATCHER_SOURCE = String.raw`
const { Session } = require("node:inspector/promises");
const { parentPort, workerData } = require("node:worker_threads");
const { starts, marker, root, sideEntries } = workerData;

// Runs in the main thread with "this" the scope object: does a variable (to three levels of
// properties, entries and items; own data properties only, no getter is called) hold a string
// with the marker (lower-cased: an index text counts)? The marker is two words, so that one
// token of the message (a tokenizer's or stemmer's single word) does not count as the message.
const SEARCH = String(function (marker) {
  const seen = new Set();
  const own = (value) => {
    let names;
    try { names = Object.getOwnPropertyNames(value); } catch { return []; }
    const values = [];
    for (const name of names.slice(0, 300)) {
      let d;
      try { d = Object.getOwnPropertyDescriptor(value, name); } catch { continue; }
      if (d && "value" in d) values.push(d.value);
    }
    return values;
  };
  const visit = (value, depth) => {
    if (typeof value === "string") return value.length >= marker.length && value.toLowerCase().includes(marker);
    if (value === null || typeof value !== "object" || depth > 3 || seen.has(value)) return false;
    seen.add(value);
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return false;
    let items;
    if (value instanceof Map) items = [...value.keys(), ...value.values()];
    else if (value instanceof Set || Array.isArray(value)) items = [...value];
    else items = own(value);
    return items.slice(0, 1000).some((item) => visit(item, depth + 1));
  };
  return own(this).some((value) => visit(value, 0));
});

const SCOPES = new Set(["local", "block", "closure", "catch"]);

// Holds the worker open while its inspector calls are answered (they do not keep it alive).
let finish = () => {};
parentPort.on("message", () => finish());

async function main() {
  const session = new Session();
  session.connectToMainThread();
  const urls = new Map();
  session.on("Debugger.scriptParsed", ({ params }) => urls.set(params.scriptId, params.url));
  await session.post("Debugger.enable");
  await session.post("Debugger.setAsyncCallStackDepth", { maxDepth: 64 });
  const sources = new Map();
  const breakpointsOf = new Map();
  const path = new Set();
  const sideRoads = new Set();
  const failures = [];
  const firstHolder = {};
  for (const start of starts) {
    if (!sources.has(start.scriptId)) {
      const { scriptSource } = await session.post("Debugger.getScriptSource", { scriptId: start.scriptId });
      sources.set(start.scriptId, scriptSource);
    }
    const before = sources.get(start.scriptId).slice(0, start.offset);
    const lineNumber = before.split("\n").length - 1;
    const columnNumber = start.offset - (before.lastIndexOf("\n") + 1);
    try {
      const { breakpointId } = await session.post("Debugger.setBreakpoint", { location: { scriptId: start.scriptId, lineNumber, columnNumber } });
      if (!breakpointsOf.has(start.file)) breakpointsOf.set(start.file, []);
      breakpointsOf.get(start.file).push(breakpointId);
    } catch {
      // A function V8 cannot stop in (none so far): it is simply not watched.
    }
  }
  const side = sideEntries.map((source) => new RegExp(source));
  const fileOf = (url) => (url && url.startsWith(root) ? url.slice(root.length) : null);
  const holds = async (frame) => {
    for (const scope of frame.scopeChain) {
      if (!SCOPES.has(scope.type) || !scope.object.objectId) continue;
      const { result } = await session.post("Runtime.callFunctionOn", {
        objectId: scope.object.objectId,
        functionDeclaration: SEARCH,
        arguments: [{ value: marker }],
        returnByValue: true,
      });
      if (result.value === true) return true;
    }
    return false;
  };
  session.on("Debugger.paused", async ({ params }) => {
    try {
      // The whole stack, async callers included: a frame is on a side road when it or a caller is in a side-road file.
      const callers = [];
      for (let trace = params.asyncStackTrace; trace; trace = trace.parent) callers.push(...trace.callFrames.map((frame) => fileOf(frame.url || urls.get(frame.scriptId))));
      const frames = params.callFrames.map((frame) => ({ frame, file: fileOf(urls.get(frame.location.scriptId)) }));
      let onSide = callers.some((file) => file && side.some((road) => road.test(file)));
      // From the outermost synchronous frame inwards, so that a side-road caller marks the frames it calls.
      const checks = [];
      for (let i = frames.length - 1; i >= 0; i -= 1) {
        const { frame, file } = frames[i];
        if (!file) continue;
        onSide = onSide || side.some((road) => road.test(file));
        if (path.has(file) || (onSide && sideRoads.has(file))) continue;
        checks.push({ frame, file, onSide });
      }
      for (const { frame, file, onSide } of checks.slice(-12)) {
        if (!(await holds(frame))) continue;
        if (onSide) {
          sideRoads.add(file);
          continue;
        }
        path.add(file);
        firstHolder[file] = frame.functionName || "(anonymous)";
        for (const id of breakpointsOf.get(file) || []) await session.post("Debugger.removeBreakpoint", { breakpointId: id });
        breakpointsOf.delete(file);
      }
    } catch (error) {
      failures.push(String((error && error.stack) || error));
    } finally {
      await session.post("Debugger.resume");
    }
  });
  finish = async () => {
    await session.post("Debugger.disable");
    if (failures.length > 0) parentPort.postMessage({ type: "error", error: failures[0] });
    else parentPort.postMessage({ type: "files", path: [...path], sideRoads: [...sideRoads].filter((file) => !path.has(file)), firstHolder });
  };
  parentPort.postMessage({ type: "ready" });
}

main().catch((error) => parentPort.postMessage({ type: "error", error: String(error && error.stack || error) }));
`;
