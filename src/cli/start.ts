import "dotenv/config";
import "./zod-jitless.js";
import cluster from "node:cluster";
import type { Server } from "node:http";
import { loadEnv, telemetryOptionsOf, type Env, logLevelFromEnv } from "../config.js";
import { MemoryGraphError, messageOf } from "../errors.js";
import { log, setLogLevel } from "../logger.js";
import { parseApiKeys } from "../server/api-keys.js";
import { configError, exitOnStartFailure } from "./fail.js";
import { warmUpBetweenRequests } from "./warm-up.js";

/**
 * `npm start`: the HTTP service on the configured backend (SQLite by default). Without API_KEYS
 * it serves one tenant on 127.0.0.1 only, and refuses to start that way in production or on
 * Cloud Run. On SIGTERM/SIGINT it stops accepting connections, lets requests in flight finish,
 * closes storage and exits, forcing the exit when SHUTDOWN_GRACE_MS runs out. With
 * WEB_CONCURRENCY > 1 this process becomes a node:cluster primary and each worker runs all of this.
 * A setting that cannot work (a bad variable, storage that does not answer or cannot be written)
 * ends the start-up with exit code 1 and one ERROR line naming the code, the variable and the cause:
 * config is checked before the graph and server modules load, storage by the primary before its
 * workers start, or, in one process, as the graph opens it.
 */
const FAILED = "server.start_failed";

// The library is quiet by default; an entry point logs at LOG_LEVEL (info unless set), a failed start included.
setLogLevel(logLevelFromEnv() ?? "info");
let env: Env;
try {
  env = loadEnv();
} catch (error) {
  exitOnStartFailure(FAILED, error);
}
setLogLevel(env.LOG_LEVEL);
const keys = (() => {
  try {
    return parseApiKeys(env.API_KEYS);
  } catch (error) {
    return exitOnStartFailure(FAILED, error);
  }
})();
const production = env.NODE_ENV === "production" || env.K_SERVICE !== undefined;
if (keys.length === 0 && production) {
  exitOnStartFailure(FAILED, configError("API_KEYS", "API_KEYS is required when NODE_ENV=production or on Cloud Run (K_SERVICE is set); set API_KEYS=tenant:key,…"));
}
const host = keys.length === 0 ? "127.0.0.1" : (env.HOST ?? "0.0.0.0");
if (cluster.isPrimary) {
  warnIfMemoryIsEphemeral(env);
  // Workers of one service must see one memory: each turn lock only spans the storage it lives in.
  const sqliteInMemory = env.SQLITE_PATH === ":memory:" && (env.MEMORY_BACKEND === "sqlite" || (env.MEMORY_BACKEND === "redis" && !env.DATABASE_URL));
  if (env.WEB_CONCURRENCY > 1 && (env.MEMORY_BACKEND === "memory" || sqliteInMemory)) {
    exitOnStartFailure(FAILED, configError("WEB_CONCURRENCY", "WEB_CONCURRENCY > 1 needs storage the workers share (MEMORY_BACKEND sqlite on a file, postgres or redis)"));
  }
  // A primary checks storage once, before its workers start and each fails on it alike. One process
  // alone leaves it to createMemoryGraph, whose open makes the same checks with the same errors:
  // checking first opened storage twice on the way to the first answer (a new SQLite file switched
  // to WAL and closed, a Postgres connection made and ended).
  if (env.WEB_CONCURRENCY > 1) {
    const storage = { backend: env.MEMORY_BACKEND, sqlitePath: env.SQLITE_PATH, databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL };
    const { checkStorage } = await import("../app/startup-checks.js");
    await checkStorage(storage).catch((error: unknown) => exitOnStartFailure(FAILED, error));
  }
}
if (env.WEB_CONCURRENCY > 1 && cluster.isPrimary) {
  const { runWorkerPool } = await import("../server/workers.js");
  await runWorkerPool({ count: env.WEB_CONCURRENCY, graceMs: env.SHUTDOWN_GRACE_MS });
} else {
  await serveHere();
}

/**
 * On Cloud Run a local file lives on the instance's in-memory disk, gone when the instance stops:
 * say so once, at start-up, with the setting that keeps memory.
 */
function warnIfMemoryIsEphemeral(env: Env): void {
  if (env.K_SERVICE === undefined) return;
  const where =
    env.MEMORY_BACKEND === "memory"
      ? "keeps memory in the process"
      : env.MEMORY_BACKEND === "sqlite" || (env.MEMORY_BACKEND === "redis" && !env.DATABASE_URL)
        ? `keeps ${env.MEMORY_BACKEND === "redis" ? "long-term " : ""}memory in ${env.SQLITE_PATH} on the instance's temporary disk`
        : undefined;
  if (!where) return;
  log.warn("server.memory_ephemeral", {
    code: "MEMORY_EPHEMERAL",
    variable: "MEMORY_BACKEND",
    message: `on Cloud Run (K_SERVICE is set) MEMORY_BACKEND=${env.MEMORY_BACKEND} ${where}: it is lost when the instance stops or is scaled down; set MEMORY_BACKEND=postgres with DATABASE_URL to keep it`,
  });
}

/** What the server bounds per request (body size), per key (rate) and per process (turns at once). */
function requestLimitsOf(env: Env) {
  return {
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    rateLimitPerMinute: env.RATE_LIMIT_PER_MINUTE,
    admission: { maxConcurrent: env.MAX_CONCURRENT_TURNS, maxWaitMs: env.TURN_QUEUE_MS },
  };
}

/** How long streams cut by an expired grace get to send their last event, and storage to close after. */
const STREAM_END_MS = 500;

/** One server process: the graph, the HTTP service and its graceful shutdown. */
async function serveHere(): Promise<void> {
  const [{ serve }, { createMemoryGraph }, { optionsFromEnv }, { createServer, OPEN_TENANT }, { OpenStreams }] = await Promise.all([
    import("@hono/node-server"),
    import("../app/create-memory-graph.js"),
    import("../app/options-from-env.js"),
    import("../server/create-server.js"),
    import("../server/open-streams.js"),
  ]);
  // Tracing and metrics only when an OTLP endpoint is configured: otherwise OpenTelemetry is never loaded.
  const telemetryOptions = telemetryOptionsOf(env);
  const telemetry = telemetryOptions ? await (await import("../app/telemetry-setup.js")).startTelemetry(telemetryOptions) : null;
  const memory = await createMemoryGraph(optionsFromEnv(env)).catch((error: unknown) => exitOnStartFailure(FAILED, error));
  if (keys.length === 0) {
    log.warn("server.open_mode", {
      message: `no API_KEYS configured: listening on 127.0.0.1 only, serving one tenant "${OPEN_TENANT}" without a key`,
      ignored_host: env.HOST && env.HOST !== "127.0.0.1" ? env.HOST : undefined,
    });
  }
  const counter = env.RATE_LIMIT_PER_MINUTE > 0 ? await openCounter(env) : null;
  let draining = false;
  const streams = new OpenStreams();
  const app = createServer({
    streams,
    memory,
    apiKeys: keys,
    ...requestLimitsOf(env),
    inspector: env.INSPECTOR === undefined ? !production : env.INSPECTOR === "on", // for people looking at memory: off in production unless asked for
    corsOrigins: env.CORS_ORIGINS,
    rateLimitCounter: counter?.limiter,
    isDraining: () => draining,
  });
  const warmUp = warmUpBetweenRequests(app.fetch, streams, () => draining, memory.persistence.store);
  const server = serve({ fetch: warmUp.fetch, hostname: host, port: env.PORT }, (info) => {
    log.info("server.listening", { host: info.address, port: info.port, tenants: keys.length === 0 ? [OPEN_TENANT] : undefined, keys: keys.length });
    warmUp.start();
  }) as Server;
  server.on("error", (cause) =>
    exitOnStartFailure(FAILED, new MemoryGraphError("LISTEN_FAILED", `PORT: cannot listen on ${host}:${env.PORT}: ${messageOf(cause)}`, { kind: "system", field: "PORT", cause })),
  );

  async function shutdown(signal: string): Promise<void> {
    if (draining) return;
    draining = true;
    log.info("server.draining", { signal, grace_ms: env.SHUTDOWN_GRACE_MS });
    const deadline = setTimeout(() => {
      log.error("server.grace_expired", { grace_ms: env.SHUTDOWN_GRACE_MS, open_streams: streams.size });
      // Each streaming answer still open ends with an `error` event (retry the same message_id) first.
      void streams
        .endAll(STREAM_END_MS)
        .finally(() => server.closeAllConnections())
        // A turn still in flight (its model never answered) would hold the close up: exit anyway.
        .then(() => Promise.race([memory.close(), new Promise((resolve) => setTimeout(resolve, STREAM_END_MS))]))
        .finally(() => process.exit(1));
    }, env.SHUTDOWN_GRACE_MS);
    deadline.unref();
    // Keep-alive connections that fall idle while draining are closed as they do.
    const idle = setInterval(() => server.closeIdleConnections(), 100);
    idle.unref();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    clearInterval(idle);
    try {
      // Metrics of the graph's last moments (the dependency gauge reads it) go out while it is open.
      await telemetry?.flush();
      await counter?.close();
      await memory.close();
      // Spans and metrics still queued go out before the process ends.
      await telemetry?.shutdown();
    } catch (error) {
      log.error("server.close_failed", { error: messageOf(error) });
      process.exit(1);
    }
    clearTimeout(deadline);
    log.info("server.stopped", { signal });
    process.exit(0);
  }

  process.once("SIGTERM", () => void shutdown("SIGTERM"));
  process.once("SIGINT", () => void shutdown("SIGINT"));
}

/** The rate limit's shared request counter (Redis when REDIS_URL is set, else the backend's database). */
async function openCounter(env: Env) {
  const { openRateLimitCounter } = await import("../app/rate-limit-store.js");
  const options = { points: env.RATE_LIMIT_PER_MINUTE, backend: env.MEMORY_BACKEND, sqlitePath: env.SQLITE_PATH, databaseUrl: env.DATABASE_URL, redisUrl: env.REDIS_URL };
  const counter = await openRateLimitCounter(options).catch((error: unknown) => exitOnStartFailure(FAILED, error));
  log.info("server.rate_limit", { per_minute: env.RATE_LIMIT_PER_MINUTE, counted_in: counter.engine });
  return counter;
}
