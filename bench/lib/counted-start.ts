import fs from "node:fs";
import path from "node:path";

/**
 * What bench/cold-start.ts needs to read a start's cost at the first answer without the clock:
 * the preload every measured process runs (first-answer-preload.mjs: CPU time at the answer, and
 * the point where callgrind writes its counts), and how a start runs under valgrind's callgrind,
 * which counts the instructions executed — the same whatever else the machine runs, where the
 * clock and even CPU time move with the load of a shared machine.
 */

/** The preload, by absolute path (a side may run in another checkout). */
export const FIRST_ANSWER_PRELOAD = path.resolve("bench/lib/first-answer-preload.mjs");

/** What the preload writes at the first answer. */
export interface FirstAnswer {
  cpu_ms: number;
}

/** Waits (up to `timeoutMs`) for the preload's file and reads it. */
export async function firstAnswerOf(file: string, timeoutMs: number): Promise<FirstAnswer> {
  const until = performance.now() + timeoutMs;
  while (!fs.existsSync(file)) {
    if (performance.now() > until) throw new Error(`no first answer written to ${file} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return JSON.parse(fs.readFileSync(file, "utf8")) as FirstAnswer;
}

/**
 * Valgrind runs the process about 50 times slower: its timers are stretched as much (the preload's
 * FIRST_ANSWER_TIME_SCALE), so that the service's warm-up, 50 ms after listening, still comes after
 * a request that arrives a few native ms after the port opens, as in a native start (without it,
 * the warm-up's language tools were counted and ours came out at 2.65× the bare chatbot, against
 * 1.36× with it). The waits a turn may time out on are lengthened beyond any stretch: a storage
 * call (1.5 s by default), the query's vector (25 ms), a model call; natively none of them runs
 * out on this path, so the path counted is the one a native start takes.
 */
const SLOWDOWN = 50;
export const COUNTED_ENV = {
  FIRST_ANSWER_TIME_SCALE: String(SLOWDOWN),
  STORAGE_TIMEOUT_MS: "600000",
  RECALL_VECTOR_WAIT_MS: "600000",
  OPENAI_TIMEOUT_MS: "600000",
};

/**
 * The command that runs `node` under callgrind, writing its counts to `outFile` each time the preload
 * calls os.uptime(), at listening and at the first answer (`--dump-before=uv_uptime`); V8 writes code as it runs, so
 * every write to code is checked (`--smc-check=all-non-file`).
 */
export function callgrindPrefix(outFile: string): string[] {
  return ["valgrind", "--tool=callgrind", "--smc-check=all-non-file", "--dump-before=uv_uptime", `--callgrind-out-file=${outFile}`, "--log-file=/dev/null"];
}

/** The instructions counted from the spawn to the first server's listening, and from then to the answer. */
export interface Counted {
  to_listen: number;
  listen_to_answer: number;
}

/** The two dumps the preload's os.uptime() calls made: at listening (`.1`) and at the answer (`.2`). */
export function instructionsOf(outFile: string): Counted {
  const [toListen, toAnswer] = [1, 2].map((part) => {
    const total = /^(?:summary|totals): (\d+)/m.exec(fs.readFileSync(`${outFile}.${part}`, "utf8"));
    if (!total) throw new Error(`no instruction total in ${outFile}.${part}`);
    return Number(total[1]);
  });
  return { to_listen: toListen!, listen_to_answer: toAnswer! };
}

/** Runs `jobs` at most `parallel` at a time; the results in the order of `jobs`. */
export async function inPool<T>(jobs: readonly (() => Promise<T>)[], parallel: number): Promise<T[]> {
  const results: T[] = new Array<T>(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next;
      next += 1;
      results[index] = await jobs[index]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, jobs.length) }, worker));
  return results;
}
