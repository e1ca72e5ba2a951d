import { randomUUID } from "node:crypto";
import { Hono, type MiddlewareHandler } from "hono";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import type { MemoryGraph } from "../app/create-memory-graph.js";
import { MemoryGraphError } from "../errors.js";
import { log } from "../logger.js";
import { inSpan } from "../telemetry.js";
import { allowedMethods } from "./allowed-methods.js";
import { snakeKeys } from "./case.js";
import { bearerToken, matchKey, parseApiKeys, type KeyEntry } from "./api-keys.js";
import type { ServerEnv } from "./context.js";
import { respondError } from "./http-error.js";
import { DEFAULT_IMPORT_BODY_LIMIT_BYTES, memoryApiHandlers } from "./memory-api-routes.js";
import { inspectorHandlers } from "./inspector.js";
import { itemHandlers } from "./item-routes.js";
import { memoryHandlers } from "./memory-routes.js";
import { openApiDocument } from "./openapi.js";
import { requestLimiter, type RequestLimiter } from "./rate-limit.js";
import { OpenStreams } from "./open-streams.js";
import { API_PREFIX, ROUTES, type OperationId, type RouteHandlers } from "./routes.js";
import { sessionListHandlers } from "./session-list-routes.js";
import { turnHandlers } from "./turn-routes.js";

/** Options of the HTTP service. */
export interface ServerOptions {
  memory: MemoryGraph;
  /** `API_KEYS` (`tenant:key` or `tenant:sha256:<hex>` pairs), or parsed entries. Empty: open, tenant `default`. */
  apiKeys?: string | readonly KeyEntry[];
  /** Largest accepted request body (default 256 KiB). */
  bodyLimitBytes?: number;
  /** Largest accepted import body (default 16 MiB): an import carries many messages. */
  importBodyLimitBytes?: number;
  /** Requests per key per minute; 0 (default) turns the limit off. */
  rateLimitPerMinute?: number;
  /** The streaming answers in flight: a shutdown whose grace runs out ends them (`OpenStreams.endAll`). */
  streams?: OpenStreams;
  /** Serve the memory inspector at /inspector (default true; `npm start` turns it off in production unless INSPECTOR=on). */
  inspector?: boolean;
  /**
   * Where requests are counted (see `openRateLimitCounter`): shared storage makes the limit hold
   * across workers and instances. Without it each process counts its own.
   */
  rateLimitCounter?: RateLimiterAbstract;
  /** True while shutting down: readiness fails so that no new traffic is sent here. */
  isDraining?: () => boolean;
}

/** The tenant served when no API keys are configured. */
export const OPEN_TENANT = "default";

const REQUEST_ID = /^[\w.:-]{1,128}$/;
/** How long /readyz waits for each dependency's ping (they run at once): under the probes' usual one second. */
const READY_PING_MS = 800;

/**
 * The HTTP service as a Hono app (serve it with @hono/node-server, or call `app.request()` in
 * tests). It answers the routes of the route table (routes.ts) and nothing else; every route
 * under /v1 needs a key unless none are configured; health routes and /openapi.json need none.
 */
export function createServer(options: ServerOptions): Hono<ServerEnv> {
  const keys = typeof options.apiKeys === "string" || options.apiKeys === undefined ? parseApiKeys(options.apiKeys) : [...options.apiKeys];
  const perMinute = options.rateLimitPerMinute ?? 0;
  const limiter = perMinute > 0 ? requestLimiter(perMinute, options.rateLimitCounter) : null;
  const app = new Hono<ServerEnv>();

  app.use("*", requestLog());
  app.use(`${API_PREFIX}/*`, authenticate(keys));
  if (limiter) app.use(`${API_PREFIX}/*`, rateLimit(limiter));
  const deps = { memory: options.memory, bodyLimitBytes: options.bodyLimitBytes ?? 262_144, streams: options.streams ?? new OpenStreams() };
  const handlers: RouteHandlers = {
    ...turnHandlers(deps),
    ...memoryHandlers(deps),
    ...sessionListHandlers(deps),
    ...itemHandlers(deps),
    ...inspectorHandlers(options.inspector ?? true),
    ...memoryApiHandlers({ ...deps, importBodyLimitBytes: options.importBodyLimitBytes ?? DEFAULT_IMPORT_BODY_LIMIT_BYTES }),
    health: (c) => c.json({ status: "ok" }, 200),
    ready: async (c) => {
      if (options.isDraining?.()) return c.json({ error: { code: "DRAINING", message: "shutting down" } }, 503);
      // Every dependency is pinged at once, each given READY_PING_MS: the answer comes within a second.
      const dependencies = await options.memory.checkHealth(READY_PING_MS);
      const failing = dependencies.filter((dependency) => !dependency.ok);
      if (failing.length === 0) return c.json({ status: "ready" }, 200);
      // Losing and regaining a dependency is logged once each (dependency.lost/recovered), not per probe.
      log.debug("http.not_ready", { request_id: c.get("requestId"), failing: failing.map((d) => d.name) });
      const message = `not answering: ${failing.map((d) => `${d.name} (${d.engine})`).join(", ")}`;
      return c.json({ error: { code: "STORAGE_UNREACHABLE", message }, dependencies: dependencies.map((d) => snakeKeys(d)) }, 503);
    },
    openApi: (c) => c.json(openApiDocument(), 200),
  };
  for (const [operationId, route] of Object.entries(ROUTES)) {
    app.on(route.method.toUpperCase(), route.path, handlers[operationId as OperationId]);
  }

  app.notFound((c) => {
    const allow = allowedMethods(app, c.req.path);
    if (allow.length === 0) return respondError(c, new MemoryGraphError("NOT_FOUND", `no route ${c.req.method} ${c.req.path}`, { kind: "user" }));
    c.header("Allow", allow.join(", "));
    const message = `${c.req.method} is not allowed on ${c.req.path}; it takes ${allow.join(", ")}`;
    return respondError(c, new MemoryGraphError("METHOD_NOT_ALLOWED", message, { kind: "user" }));
  });
  app.onError((error, c) => respondError(c, error));
  return app;
}

/** Request id (X-Request-Id echoed when sane, else generated) and one structured log line per request. */
function requestLog(): MiddlewareHandler<ServerEnv> {
  // With tracing on, each request is a server span and every line logged while it runs carries its trace id.
  return (c, next) => inSpan(`${c.req.method}`, { "http.request.method": c.req.method, "url.path": c.req.path }, async (span) => {
    const started = performance.now();
    const given = c.req.header("x-request-id");
    const requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
    c.set("requestId", requestId);
    c.header("X-Request-Id", requestId);
    await next();
    const status = c.res.status;
    span?.updateName(`${c.req.method} ${c.req.routePath}`);
    span?.setAttributes({ "http.route": c.req.routePath, "http.response.status_code": status, "memory_graph.tenant": c.get("tenantId") ?? "", "memory_graph.request_id": requestId });
    const fields = {
      request_id: requestId,
      method: c.req.method,
      route: c.req.routePath,
      status,
      latency_ms: Math.round((performance.now() - started) * 10) / 10,
      tenant: c.get("tenantId"),
    };
    if (status >= 500) log.error("http.request", fields);
    else if (status >= 400) log.warn("http.request", fields);
    else log.info("http.request", fields);
    // A client that goes away before its answer is complete (a JSON turn, or a stream mid-answer) is no
    // fault of the service: one INFO line, no stack. The turn itself runs on and is stored whole.
    const signal = c.req.raw.signal;
    const closed = () => log.info("http.client_closed", { request_id: requestId, method: c.req.method, route: c.req.routePath, tenant: c.get("tenantId") });
    if (signal.aborted) closed();
    else signal.addEventListener("abort", closed, { once: true });
  });
}

/** The tenant comes from the key alone; with no keys configured every request is tenant `default`. */
function authenticate(keys: readonly KeyEntry[]): MiddlewareHandler<ServerEnv> {
  return async (c, next) => {
    if (keys.length === 0) {
      c.set("tenantId", OPEN_TENANT);
      c.set("keyId", "open");
      return next();
    }
    const token = bearerToken(c.req.header("authorization"));
    const match = token === null ? null : matchKey(keys, token);
    if (!match) {
      c.header("WWW-Authenticate", "Bearer");
      throw new MemoryGraphError("UNAUTHORIZED", token === null ? "missing API key (Authorization: Bearer …)" : "invalid API key", { kind: "user" });
    }
    c.set("tenantId", match.tenantId);
    c.set("keyId", match.keyId);
    return next();
  };
}

/**
 * Counts the request against its key; every answer says where the key stands (RateLimit-Limit,
 * -Remaining, -Reset in seconds, and RateLimit-Policy, as in the IETF RateLimit header fields
 * draft), and a request over the limit is a 429 with Retry-After.
 */
function rateLimit(limiter: RequestLimiter): MiddlewareHandler<ServerEnv> {
  const policy = `${limiter.limit};w=${limiter.windowSeconds}`;
  return async (c, next) => {
    const decision = await limiter.take(`${c.get("tenantId")}#${c.get("keyId")}`);
    c.header("RateLimit-Policy", policy);
    c.header("RateLimit-Limit", String(decision.limit));
    c.header("RateLimit-Remaining", String(decision.remaining));
    c.header("RateLimit-Reset", String(decision.resetSeconds));
    if (!decision.allowed) {
      c.header("Retry-After", String(decision.resetSeconds));
      throw new MemoryGraphError("RATE_LIMITED", "too many requests for this key; retry later", { kind: "user" });
    }
    return next();
  };
}
