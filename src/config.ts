import { z } from "zod";
import { MemoryGraphError } from "./errors.js";

/**
 * The one reader of `process.env`. Every variable, its default and its meaning is also listed in
 * architecture.yaml (a test keeps the two in step). Parsing fails at start-up naming the variable.
 */
const int = (fallback: number, min = 0) => z.coerce.number().int().min(min).default(fallback);
const optionalInt = (min = 1) =>
  z.preprocess((v) => (v === "" || v === undefined ? undefined : v), z.coerce.number().int().min(min).optional());
const optionalString = z.preprocess((v) => (v === "" ? undefined : v), z.string().optional());
/** A connection URL of one of `protocols`; the message never repeats the value (it may hold a password). */
const connectionUrl = (protocols: readonly string[], example: string) =>
  optionalString.refine((v) => v === undefined || protocols.includes(protocolOf(v)), { message: `must be a URL like ${example}` });

function protocolOf(value: string): string {
  try {
    return new URL(value).protocol;
  } catch {
    return "";
  }
}

export const envSchema = z.object({
  MEMORY_BACKEND: z.enum(["memory", "sqlite", "postgres", "redis"]).default("sqlite"),
  SQLITE_PATH: z.string().min(1).default("./data/memory.db"),
  DATABASE_URL: connectionUrl(["postgres:", "postgresql:", "socket:"], "postgres://user:password@host:5432/db"),
  REDIS_URL: connectionUrl(["redis:", "rediss:"], "redis://host:6379"),
  MEMORY_MODE: z.enum(["conversation", "node"]).default("conversation"),
  MEMORY_MAX_MESSAGES: int(20, 1),
  MEMORY_MAX_CHARS: int(8000, 1),
  MEMORY_MAX_TOKENS: optionalInt(1),
  SESSION_TTL_SECONDS: int(1800, 1),
  SUMMARY_INTERVAL: int(10, 1),
  IMPORTANCE_THRESHOLD: z.coerce.number().min(0).max(1).default(0.5),
  MAX_EVENTS_PER_USER: int(1000, 1),
  EVENT_RETENTION_DAYS: int(365, 1),
  CHECKPOINT_KEEP: int(20, 1),
  CONTEXT_TOKEN_BUDGET: int(2000, 1),
  RECALL_VECTOR_WAIT_MS: int(25, 0),
  RECALL_CACHE_MB: int(128, 0),
  RECALL_CACHE_MAX_RSS_MB: optionalInt(0),
  MAX_PROMPT_CHARS: int(32_000, 1),
  SYSTEM_PROMPT: optionalString,
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalString,
  OPENAI_MODEL: z.string().min(1).default("gpt-4o-mini"),
  OPENAI_EMBEDDINGS_MODEL: z.string().min(1).default("text-embedding-3-small"),
  OPENAI_TIMEOUT_MS: int(30_000, 1),
  SESSION_TITLES: z.enum(["true", "false"]).default("false"),
  CLASSIFY_POLICY: z.enum(["auto", "model", "rules"]).default("auto"),
  PROFILE_SCHEMA_PATH: optionalString,
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  PORT: int(8080, 1).pipe(z.number().max(65_535)),
  HOST: optionalString,
  API_KEYS: optionalString,
  BODY_LIMIT_BYTES: int(262_144, 1),
  RATE_LIMIT_PER_MINUTE: int(0, 0),
  MAX_CONCURRENT_TURNS: int(32, 0),
  TURN_QUEUE_MS: int(500, 0),
  SHUTDOWN_GRACE_MS: int(10_000, 0),
  STORAGE_TIMEOUT_MS: int(1500, 50),
  INSPECTOR: z.preprocess((v) => (v === "" ? undefined : v), z.enum(["on", "off"]).optional()),
  CORS_ORIGINS: optionalString.transform(parseOrigins),
  NODE_ENV: optionalString,
  K_SERVICE: optionalString,
  WEB_CONCURRENCY: int(1, 1),
  // OpenTelemetry's standard variables (the subset this service reads): traces and metrics go out
  // over OTLP/HTTP when an endpoint is set, and nothing of OpenTelemetry is loaded when none is.
  OTEL_EXPORTER_OTLP_ENDPOINT: connectionUrl(["http:", "https:"], "http://collector:4318"),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: connectionUrl(["http:", "https:"], "http://collector:4318/v1/traces"),
  OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: connectionUrl(["http:", "https:"], "http://collector:4318/v1/metrics"),
  OTEL_EXPORTER_OTLP_HEADERS: optionalString.transform(parseOtlpHeaders),
  OTEL_SERVICE_NAME: z.string().min(1).default("memory-graph"),
  OTEL_METRIC_EXPORT_INTERVAL: int(60_000, 100),
  OTEL_SDK_DISABLED: z.enum(["true", "false", ""]).default("false"),
});

/** `key=value,key2=value2` (values percent-decoded), as the OpenTelemetry spec writes OTLP headers. */
function parseOtlpHeaders(raw: string | undefined, ctx: z.core.$RefinementCtx<string | undefined>): Record<string, string> | undefined {
  if (raw === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const pair of raw.split(",")) {
    const at = pair.indexOf("=");
    const key = pair.slice(0, at).trim();
    if (at <= 0 || key === "") {
      ctx.addIssue({ code: "custom", message: "must be key=value pairs separated by commas" });
      return z.NEVER;
    }
    headers[key] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}

/**
 * `https://app.example.com,http://localhost:5173`: the web origins (scheme, host and port, nothing
 * after) whose pages may call the API from a browser. Unset or empty: none (no CORS headers at all).
 */
function parseOrigins(raw: string | undefined, ctx: z.core.$RefinementCtx<string | undefined>): string[] {
  if (raw === undefined) return [];
  const origins: string[] = [];
  for (const part of raw.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    let origin = "";
    try {
      const url = new URL(part);
      if (url.protocol === "http:" || url.protocol === "https:") origin = url.origin;
    } catch {
      origin = "";
    }
    if (origin === "" || origin !== part.replace(/\/$/, "")) {
      ctx.addIssue({ code: "custom", message: `"${part}" is not an origin like https://app.example.com (scheme, host and port only)` });
      return z.NEVER;
    }
    origins.push(origin);
  }
  return origins;
}

export type Env = z.infer<typeof envSchema>;

/** Parses an environment (default: `process.env`); throws CONFIG_INVALID naming each bad variable. */
export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  const parsed = envSchema.safeParse(source);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
  throw new MemoryGraphError("CONFIG_INVALID", `invalid configuration: ${issues.join("; ")}`, {
    kind: "system",
    field: String(parsed.error.issues[0]?.path[0] ?? ""),
  });
}

const logLevels = envSchema.shape.LOG_LEVEL.unwrap();

/**
 * LOG_LEVEL alone, for the library's entry points (which read nothing else): the level when it is
 * one of ours, else undefined — a host's own LOG_LEVEL ("trace", "fatal") is the host's business.
 */
export function logLevelFromEnv(source: Record<string, string | undefined> = process.env): Env["LOG_LEVEL"] | undefined {
  const parsed = logLevels.safeParse(source.LOG_LEVEL);
  return parsed.success ? parsed.data : undefined;
}

/** Where traces and metrics go (OTLP/HTTP), or null when telemetry is off (no endpoint, or OTEL_SDK_DISABLED=true). */
export function telemetryOptionsOf(env: Env): TelemetryOptions | null {
  if (env.OTEL_SDK_DISABLED === "true") return null;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.replace(/\/+$/, "");
  const tracesUrl = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base ? `${base}/v1/traces` : undefined);
  const metricsUrl = env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT ?? (base ? `${base}/v1/metrics` : undefined);
  if (!tracesUrl && !metricsUrl) return null;
  return { tracesUrl, metricsUrl, headers: env.OTEL_EXPORTER_OTLP_HEADERS ?? {}, serviceName: env.OTEL_SERVICE_NAME, metricIntervalMs: env.OTEL_METRIC_EXPORT_INTERVAL };
}

/** What `startTelemetry` needs: the OTLP/HTTP endpoints (either may be absent), headers, the service's name, the metrics interval. */
export interface TelemetryOptions {
  tracesUrl?: string;
  metricsUrl?: string;
  headers: Record<string, string>;
  serviceName: string;
  metricIntervalMs: number;
}
