import cluster, { type Worker } from "node:cluster";
import { messageOf } from "../errors.js";
import { log } from "../logger.js";

/** How the primary process runs its HTTP workers. */
export interface WorkerPoolOptions {
  /** Worker processes; each runs the whole service and they share the listening port. */
  count: number;
  /** Time workers get to drain after SIGTERM/SIGINT before they are killed. */
  graceMs: number;
}

/**
 * The primary of `WEB_CONCURRENCY` > 1: forks `count` workers one after another (each waits for
 * the previous one to listen, so storage set-up never races), replaces a worker that dies while
 * serving, and on SIGTERM/SIGINT passes the signal on and exits once every worker has drained —
 * 0 when all of them stopped cleanly, 1 otherwise or when `graceMs` runs out. A worker that dies
 * before it listens (a bad port, storage that will not open) stops the whole service with exit 1.
 * The primary opens no storage and serves nothing itself.
 */
export async function runWorkerPool(options: WorkerPoolOptions): Promise<void> {
  let draining = false;
  let failed = false;

  const forkListening = () =>
    new Promise<Worker>((resolve, reject) => {
      const worker = cluster.fork();
      const onExit = (code: number | null, signal: string | null) => reject(new Error(`worker ${worker.id} exited before listening (code ${code}, signal ${signal})`));
      worker.once("exit", onExit);
      worker.once("listening", () => {
        worker.off("exit", onExit);
        resolve(worker);
      });
    });

  const supervise = (worker: Worker) => {
    worker.once("exit", (code, signal) => {
      if (draining) {
        if (code !== 0) failed = true;
        return;
      }
      log.error("server.worker_died", { worker: worker.id, code, signal });
      forkListening().then(supervise, (error: unknown) => stop(1, error));
    });
  };

  const stop = (code: number, error?: unknown) => {
    if (error) log.error("server.workers_failed", { error: messageOf(error) });
    draining = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGKILL");
    process.exit(code);
  };

  const shutdown = (signal: NodeJS.Signals) => {
    if (draining) return;
    draining = true;
    log.info("server.draining", { signal, workers: Object.keys(cluster.workers ?? {}).length, grace_ms: options.graceMs });
    const deadline = setTimeout(() => stop(1, new Error(`workers still running after ${options.graceMs} ms`)), options.graceMs + 1000);
    deadline.unref();
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    const poll = setInterval(() => {
      if (Object.keys(cluster.workers ?? {}).length > 0) return;
      clearInterval(poll);
      clearTimeout(deadline);
      log.info("server.stopped", { signal, clean: !failed });
      process.exit(failed ? 1 : 0);
    }, 20);
  };
  process.once("SIGTERM", () => shutdown("SIGTERM"));
  process.once("SIGINT", () => shutdown("SIGINT"));

  try {
    for (let i = 0; i < options.count; i += 1) supervise(await forkListening());
  } catch (error) {
    if (!draining) stop(1, error);
  }
  log.info("server.workers", { workers: options.count });
}
