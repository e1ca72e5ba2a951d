/**
 * Preloaded (`node --import`) into each process bench/cold-start.ts starts, ours and the bare
 * chatbot's alike: when the response to the process's first POST has been handed to the kernel
 * ('finish'), it reads the CPU time the process has used (`process.cpuUsage()`: user + system of
 * every thread, in µs, where /proc's ticks are 10 ms), then calls `os.uptime()` — which nothing else
 * on that path calls, so that callgrind's `--dump-before=uv_uptime` writes the instructions counted
 * since its last dump, made by the same call when the first server started listening — and then
 * writes the figures as JSON to FIRST_ANSWER_FILE.
 * With FIRST_ANSWER_TIME_SCALE=k (under valgrind, which runs the process some 50 times slower) every
 * timer's delay is multiplied by k, so that timed work keeps its place relative to the request as
 * in a native run: the service's warm-up, 50 ms after listening, must not start before a request
 * that arrives a few native ms after the port opens.
 * Plain JavaScript: it runs under valgrind, where no TypeScript loader should.
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import process from "node:process";

const file = process.env.FIRST_ANSWER_FILE;
const scale = Number(process.env.FIRST_ANSWER_TIME_SCALE ?? 1);
if (scale !== 1) {
  const { setTimeout: later, setInterval: every } = globalThis;
  globalThis.setTimeout = (callback, ms, ...args) => later(callback, (Number(ms) || 0) * scale, ...args);
  globalThis.setInterval = (callback, ms, ...args) => every(callback, (Number(ms) || 0) * scale, ...args);
}
const emit = http.Server.prototype.emit;
let seen = false;
let listening = false;
http.Server.prototype.emit = function (event, request, response, ...rest) {
  // The first server listening: callgrind's first dump (spawn to listening), the answer's the second.
  if (event === "listening" && !listening) {
    listening = true;
    os.uptime();
  }
  if (event === "request" && !seen && request.method === "POST") {
    seen = true;
    response.once("finish", () => {
      const cpu = process.cpuUsage();
      os.uptime();
      if (!file) return;
      // Written whole under another name, then renamed: whoever waits for the file reads it complete.
      fs.writeFileSync(`${file}.part`, JSON.stringify({ cpu_ms: (cpu.user + cpu.system) / 1000, monotonic_us: Number(process.hrtime.bigint() / 1000n) }));
      fs.renameSync(`${file}.part`, file);
    });
  }
  return emit.call(this, event, request, response, ...rest);
};
