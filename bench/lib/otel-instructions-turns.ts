/**
 * The process bench/otel-instructions.ts counts under callgrind: the graph as `npm start` builds it
 * offline (temp SQLite file, offline models, hashed embedder), then `warmup` + `turns` turns of
 * `size`-character prompts (bench:prompt-cost's, seeded), then close. The counted segment is marked
 * by two libuv calls nothing else in the process makes: `os.getPriority()` (uv_os_getpriority: the
 * counter zeroes) after the warm-up turns, `os.uptime()` (uv_uptime: the counts are dumped) after
 * the measured ones. Arguments: one JSON object (`TurnsJob`).
 * With `exportEvery`, OpenTelemetry is started first (the service's SDK settings) exporting over
 * OTLP/HTTP to `receiver`, and flushed after every `exportEvery` turns and at the end; without it,
 * telemetry is off: the code as the service runs it with no OTLP endpoint. Ids come from a counter
 * (same length as UUIDs) so that two runs of one job do the same work.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createMemoryGraph } from "../../src/app/create-memory-graph.js";
import { optionsFromEnv } from "../../src/app/options-from-env.js";
import { loadEnv } from "../../src/config.js";
import { setLogLevel } from "../../src/logger.js";
import { longPrompt } from "./long-prompts.js";

export interface TurnsJob {
  warmup: number;
  turns: number;
  size: number;
  /** Turns between exports; null: telemetry off. */
  exportEvery: number | null;
  /** The OTLP/HTTP receiver's base URL (used when `exportEvery` is set). */
  receiver: string;
}

const job = JSON.parse(process.argv[2] ?? "") as TurnsJob;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-bench-otel-instr-"));
setLogLevel("silent");
let counter = 0;
const newId = () => `00000000-0000-4000-8000-${(counter++).toString(16).padStart(12, "0")}`;
try {
  const telemetry = job.exportEvery
    ? await (await import("../../src/app/telemetry-setup.js")).startTelemetry({
        tracesUrl: `${job.receiver}/v1/traces`,
        metricsUrl: `${job.receiver}/v1/metrics`,
        headers: {},
        serviceName: "bench",
        // Exports happen at the flushes only (valgrind's slowdown must not add timed ones).
        metricIntervalMs: 24 * 3_600_000,
      }, { spanExportDelayMs: 24 * 3_600_000 })
    : null;
  const env = loadEnv({ ...process.env, MEMORY_BACKEND: "sqlite", SQLITE_PATH: path.join(dir, "bench.db"), OPENAI_API_KEY: "", OPENAI_BASE_URL: "" });
  const graph = await createMemoryGraph({ ...optionsFromEnv(env), logger: false, newId });
  for (let i = 0; i < job.warmup + job.turns; i += 1) {
    if (i === job.warmup) os.getPriority();
    await graph.runTurn({ tenantId: "bench", userId: "u-bench", sessionId: "s-bench", message: longPrompt(job.size, i + 1) });
    if (telemetry && job.exportEvery && (i + 1) % job.exportEvery === 0) await telemetry.flush();
  }
  os.uptime();
  await graph.close();
  await telemetry?.shutdown();
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
