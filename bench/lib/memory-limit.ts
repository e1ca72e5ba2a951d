/**
 * A memory limit as a container's `--memory` sets one (Cloud Run's --memory 512Mi): a memory cgroup
 * of its own (v2, else v1), which a command enters before it starts, so that Node sizes V8's heap
 * from the limit (a heap limit of 259 MB on Node 20 and 268 on Node 26 under 512 MiB, against
 * several GB on a machine without one) and the service's RECALL_CACHE_MAX_RSS_MB default reads it.
 * Needs root and a writable cgroup hierarchy. Memory measured without a limit lets V8 size its heap
 * from the whole machine and collect late (docs/operations.md).
 *
 * As a command: `npx tsx bench/lib/memory-limit.ts 512 node --expose-gc --import tsx bench/recall-users.ts …`
 * runs the command under the limit and removes the cgroup after it.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** A memory cgroup and how to start a command in it. */
export interface MemoryLimit {
  dir: string;
  /** `command` and `args` wrapped so that the process enters the cgroup before it execs: the same pid. */
  wrap(command: string, args: readonly string[]): [string, string[]];
  /** Removes the cgroup once nothing runs in it. */
  remove(): void;
}

/** Makes a memory cgroup of `mb` MiB named after `name`. */
export function memoryLimit(mb: number, name: string): MemoryLimit {
  if (!(Number.isInteger(mb) && mb > 0)) throw new Error(`memory limit: a whole number of MiB > 0, not ${mb}`);
  const v2 = existsSync("/sys/fs/cgroup/cgroup.controllers");
  const dir = path.join(v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory", `memory-graph-${name}-${process.pid}`);
  try {
    mkdirSync(dir);
    writeFileSync(path.join(dir, v2 ? "memory.max" : "memory.limit_in_bytes"), String(mb * 1024 * 1024));
  } catch (error) {
    throw new Error(`memory limit: cannot make the cgroup ${dir} (root and a writable cgroup hierarchy are needed): ${(error as Error).message}`, { cause: error });
  }
  return {
    dir,
    wrap: (command, args) => ["sh", ["-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', dir, command, ...args]],
    remove: () => rmdirSync(dir),
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const [mb, command, ...args] = process.argv.slice(2);
  if (!mb || !command) throw new Error("usage: npx tsx bench/lib/memory-limit.ts MiB command [args…]");
  const limit = memoryLimit(Number(mb), "command");
  const child = spawn(...limit.wrap(command, args), { stdio: "inherit" });
  child.on("exit", (code, signal) => {
    limit.remove();
    process.exit(code ?? (signal ? 1 : 0));
  });
}
