import { randomUUID } from "node:crypto";
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { cors } from "hono/cors";
import { HTTPException } from "hono/http-exception";
import { requestId } from "hono/request-id";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import type { MemoryGraph } from "../app/create-memory-graph.js";
import { MemoryGraphError } from "../errors.js";
import { log } from "../logger.js";
import { inSpan } from "../telemetry.js";
import { allowedMethods } from "./allowed-methods.js";
import { matchKey, parseApiKeys, type KeyEntry } from "./api-keys.js";
import type { ServerEnv } from "./context.js";
import { respondError } from "./http-error.js";
import { DEFAULT_IMPORT_BODY_LIMIT_BYTES } from "./memory-api-routes.js";
import { OpenStreams } from "./open-streams.js";
import { TurnAdmission, type AdmissionOptions } from "./admission.js";
import { requestLimiter, type RequestLimiter } from "./rate-limit.js";
import { API_PREFIX, REPLAYED_HEADER } from "./responses.js";
import { registerRoutes } from "./route.js";
import { ROUTES } from "./routes.js";

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
  /**
   * Turns run at once (`maxConcurrent`, 0: no bound) and how long one waits for a place (`maxWaitMs`)
   * before it is refused with OVERLOADED (503, Retry-After); see `TurnAdmission`. Default: no bound.
   */
  admission?: AdmissionOptions;
  /** Serve the memory inspector at /inspector (default true; `npm start` turns it off in production unless INSPECTOR=on). */
  inspector?: boolean;
  /**
   * Where requests are counted (see `openRateLimitCounter`): shared storage makes the limit hold
   * across workers and instances. Without it each process counts its own.
   */
  rateLimitCounter?: RateLimiterAbstract;
  /**
   * Web origins whose pages may call /v1 from a browser (`CORS_ORIGINS`): their requests get CORS
   * headers and their preflights (OPTIONS) an answer. Empty or left out (the default): CORS is off.
   */
  corsOrigins?: readonly string[];
  /** True while shutting down: readiness fails so that no new traffic is sent here. */
  isDraining?: () => boolean;
}

/** The tenant served when no API keys are configured. */
export const OPEN_TENANT = "default";

/** The request ids taken as sent (X-Request-Id); any other is replaced by a new one. */
const REQUEST_ID = /^[\w.:=-]{1,128}$/;

/**
 * The HTTP service as a Hono app (serve it with @hono/node-server, or call `app.request()` in
 * tests). It answers the route definitions of routes.ts and nothing else; every route
 * under /v1 needs a key unless none are configured; health routes and /openapi.json need none.
 */
export function createServer(options: ServerOptions): Hono<ServerEnv> {
  const keys = typeof options.apiKeys === "string" || options.apiKeys === undefined ? parseApiKeys(options.apiKeys) : [...options.apiKeys];
  const perMinute = options.rateLimitPerMinute ?? 0;
  const limiter = perMinute > 0 ? requestLimiter(perMinute, options.rateLimitCounter) : null;
  const app = new Hono<ServerEnv>();

  // Hono's request id keeps a sent id of word characters, '-' and '=' (up to 128); the generator, asked for any other, also keeps '.' and ':'.
  app.use("*", requestId({ limitLength: 128, generator: (c) => sentRequestId(c.req.header("x-request-id")) ?? randomUUID() }));
  app.use("*", requestLog());
  // Before the key check: a browser's preflight carries no key.
  if (options.corsOrigins?.length) app.use(`${API_PREFIX}/*`, crossOrigin(options.corsOrigins));
  app.use(`${API_PREFIX}/*`, authenticate(keys));
  if (limiter) app.use(`${API_PREFIX}/*`, rateLimit(limiter));
  registerRoutes(app, ROUTES, {
    memory: options.memory,
    bodyLimitBytes: options.bodyLimitBytes ?? 262_144,
    importBodyLimitBytes: options.importBodyLimitBytes ?? DEFAULT_IMPORT_BODY_LIMIT_BYTES,
    streams: options.streams ?? new OpenStreams(),
    admission: new TurnAdmission(options.admission ?? { maxConcurrent: 0, maxWaitMs: 0 }),
    inspector: options.inspector ?? true,
    isDraining: options.isDraining ?? (() => false),
    // zod-openapi and the document's code load when the document is first asked for: loaded with
    // the routes, they took about 5 ms before a fresh instance listened.
    openApiDocument: async () => (await import("./openapi.js")).openApiDocument(),
  });

  app.notFound((c) => {
    const allow = allowedMethods(app, c.req.path);
    // The path as sent (still percent-encoded): Hono's c.req.path is decoded, and a NUL in it is never echoed.
    const sent = new URL(c.req.url).pathname;
    if (allow.length === 0) return respondError(c, new MemoryGraphError("NOT_FOUND", `no route ${c.req.method} ${sent}`, { kind: "user" }));
    c.header("Allow", allow.join(", "));
    const message = `${c.req.method} is not allowed on ${sent}; it takes ${allow.join(", ")}`;
    return respondError(c, new MemoryGraphError("METHOD_NOT_ALLOWED", message, { kind: "user" }));
  });
  // Hono's bearer auth refuses with an HTTPException carrying the answer made for it (see `authenticate`).
  app.onError((error, c) => (error instanceof HTTPException && error.res ? error.getResponse() : respondError(c, error)));
  return app;
}

/**
 * Hono's CORS middleware for the listed origins only: the headers a browser page needs to send a
 * key and JSON, and to read the request id, rate-limit and replay headers of the answer.
 */
function crossOrigin(origins: readonly string[]): MiddlewareHandler<ServerEnv> {
  return cors({
    origin: [...origins],
    allowMethods: ["GET", "POST", "PATCH", "DELETE"],
    allowHeaders: ["Authorization", "Content-Type", "X-Request-Id"],
    exposeHeaders: ["X-Request-Id", "Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "RateLimit-Policy", REPLAYED_HEADER],
    maxAge: 600,
  });
}

/** One structured log line per request (under its request id). */
function requestLog(): MiddlewareHandler<ServerEnv> {
  // With tracing on, each request is a server span and every line logged while it runs carries its trace id.
  return (c, next) => inSpan(`${c.req.method}`, { "http.request.method": c.req.method, "url.path": c.req.path }, async (span) => {
    const started = performance.now();
    const requestId = c.get("requestId");
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

/** A sent request id this service keeps as it is, or undefined. */
function sentRequestId(sent: string | undefined): string | undefined {
  return sent !== undefined && REQUEST_ID.test(sent) ? sent : undefined;
}

/**
 * The tenant comes from the key alone (Hono's bearer auth, the key looked up by `matchKey`); with
 * no keys configured every request is tenant `default`. A missing, malformed or unknown key is 401
 * UNAUTHORIZED with `WWW-Authenticate: Bearer`.
 */
function authenticate(keys: readonly KeyEntry[]): MiddlewareHandler<ServerEnv> {
  if (keys.length === 0) {
    return async (c, next) => {
      c.set("tenantId", OPEN_TENANT);
      c.set("keyId", "open");
      await next();
    };
  }
  const refuse = (message: string) => ({
    wwwAuthenticateHeader: "Bearer",
    message: (c: Context<ServerEnv>) => respondError(c, new MemoryGraphError("UNAUTHORIZED", message, { kind: "user" })),
  });
  const missing = refuse("missing API key (Authorization: Bearer …)");
  return bearerAuth({
    verifyToken: (token, c: Context<ServerEnv>) => {
      const match = matchKey(keys, token);
      if (match) {
        c.set("tenantId", match.tenantId);
        c.set("keyId", match.keyId);
      }
      return match !== null;
    },
    noAuthenticationHeader: missing,
    // Hono answers a header that is not `Bearer <token68>` with 400; here it is a missing key, as it always was.
    invalidAuthenticationHeader: missing,
    invalidToken: refuse("invalid API key"),
  });
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
