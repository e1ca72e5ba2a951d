import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "./free-port.js";

/**
 * A private redis-server on a free port of 127.0.0.1, for tests and benchmarks that take Redis
 * away and bring it back (the shared Redis is never touched). `stop()` ends it (SIGTERM: with
 * `persist`, Redis saves its data first and `start()` loads it again, so a checkpoint written
 * before the outage comes back stale); `pause()`/`resume()` freeze it (SIGSTOP/SIGCONT), so
 * connections stay open and nothing answers.
 */
export interface RedisChild {
  port: number;
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  pause(): void;
  resume(): void;
  /** Stops the server and removes its directory. */
  dispose(): Promise<void>;
}

export async function startRedisChild(options: { persist?: boolean } = {}): Promise<RedisChild> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-redis-"));
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--appendonly", "no", "--save", options.persist ? "3600 1" : ""];
  let child: ChildProcess | null = null;

  const start = async (): Promise<void> => {
    if (child) return;
    const started = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
    child = started;
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server on ${port} did not start: ${output}`)), 10_000);
      started.stdout?.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("Ready to accept connections")) {
          clearTimeout(timer);
          resolve();
        }
      });
      started.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server on ${port} exited with ${code}: ${output}`));
      });
    });
    started.stdout?.resume();
    started.stderr?.resume();
  };

  const stop = async (): Promise<void> => {
    const running = child;
    if (!running) return;
    child = null;
    if (running.exitCode !== null) return;
    running.kill("SIGCONT");
    const exited = new Promise<void>((resolve) => running.once("exit", () => resolve()));
    running.kill("SIGTERM");
    await exited;
  };

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    pause: () => void child?.kill("SIGSTOP"),
    resume: () => void child?.kill("SIGCONT"),
    dispose: async () => {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
