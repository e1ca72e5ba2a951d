import fs from "node:fs";
import os from "node:os";
import type { Env } from "../config.js";
import { MemoryGraphError, messageOf } from "../errors.js";
import type { MemoryGraphOptions } from "./create-memory-graph.js";

const MIB = 1024 * 1024;
/** Without RECALL_CACHE_MAX_RSS_MB and without a container memory limit: 400 MiB (fits a 512 MiB instance). */
const FALLBACK_MAX_RSS = 400 * MIB;
/** Of a container's memory limit, the RSS past which the recall cache gives memory back: room stays for a burst of turns. */
const LIMIT_SHARE = 0.75;
/** Where cgroup v2 and v1 give the container's memory limit ("max" or a huge number: none). */
const CGROUP_LIMITS = ["/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"];

/**
 * RECALL_CACHE_MAX_RSS_MB's default: three quarters of the memory limit of the container the
 * process runs in (cgroup v2 `memory.max`, or v1 `memory.limit_in_bytes`; Cloud Run's `--memory`
 * sets it), so a 1 GiB instance gives memory back past 768 MiB and a 512 MiB one past 384; without a
 * limit (or one over the machine's memory), 400 MiB. `read` is for tests.
 */
export function defaultMaxRss(read: (file: string) => string = (file) => fs.readFileSync(file, "utf8"), totalMemory = os.totalmem()): number {
  for (const file of CGROUP_LIMITS) {
    let text: string;
    try {
      text = read(file).trim();
    } catch {
      continue;
    }
    const limit = Number(text);
    if (Number.isSafeInteger(limit) && limit > 0 && limit < totalMemory) return Math.floor(limit * LIMIT_SHARE);
  }
  return FALLBACK_MAX_RSS;
}

/**
 * The graph options an environment describes (entry points parse the env with `loadEnv`). Embeddings
 * are left to `createMemoryGraph`'s default, the library's and the service's alike: OpenAI's with a
 * key or base URL, else the local hashed embedder.
 */
export function optionsFromEnv(env: Env): MemoryGraphOptions {
  const openaiConfigured = Boolean(env.OPENAI_API_KEY || env.OPENAI_BASE_URL);
  return {
    backend: env.MEMORY_BACKEND,
    sqlitePath: env.SQLITE_PATH,
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    recallCache: { maxCachedBytes: env.RECALL_CACHE_MB * MIB, maxRss: env.RECALL_CACHE_MAX_RSS_MB !== undefined ? env.RECALL_CACHE_MAX_RSS_MB * MIB : defaultMaxRss() },
    openai: openaiConfigured
      ? {
          apiKey: env.OPENAI_API_KEY,
          baseUrl: env.OPENAI_BASE_URL,
          model: env.OPENAI_MODEL,
          embeddingsModel: env.OPENAI_EMBEDDINGS_MODEL,
          timeoutMs: env.OPENAI_TIMEOUT_MS,
        }
      : undefined,
    chatModel: openaiConfigured ? undefined : null,
    classify: env.CLASSIFY_POLICY,
    memoryMode: env.MEMORY_MODE,
    ...(env.PROFILE_SCHEMA_PATH ? { profile: profileFile(env.PROFILE_SCHEMA_PATH) } : {}),
    sessionTitles: env.SESSION_TITLES === "true",
    checkpointKeep: env.CHECKPOINT_KEEP,
    storageTimeoutMs: env.STORAGE_TIMEOUT_MS,
    systemPrompt: env.SYSTEM_PROMPT,
    limits: {
      window: { maxMessages: env.MEMORY_MAX_MESSAGES, maxChars: env.MEMORY_MAX_CHARS, maxTokens: env.MEMORY_MAX_TOKENS },
      sessionTtlSeconds: env.SESSION_TTL_SECONDS,
      summaryInterval: env.SUMMARY_INTERVAL,
      importanceThreshold: env.IMPORTANCE_THRESHOLD,
      retention: { maxEventsPerUser: env.MAX_EVENTS_PER_USER, eventRetentionDays: env.EVENT_RETENTION_DAYS },
      recall: { vectorWaitMs: env.RECALL_VECTOR_WAIT_MS },
      context: { tokenBudget: env.CONTEXT_TOKEN_BUDGET },
      maxPromptChars: env.MAX_PROMPT_CHARS,
    },
  };
}

/** The JSON Schema in the file PROFILE_SCHEMA_PATH names; CONFIG_INVALID naming the variable when it cannot be read as JSON. */
function profileFile(file: string): Record<string, unknown> {
  try {
    const schema: unknown = JSON.parse(fs.readFileSync(file, "utf8"));
    if (schema !== null && typeof schema === "object" && !Array.isArray(schema)) return schema as Record<string, unknown>;
    throw new Error("not a JSON object");
  } catch (error) {
    throw new MemoryGraphError("CONFIG_INVALID", `PROFILE_SCHEMA_PATH: ${file}: ${messageOf(error)}`, { kind: "system", field: "PROFILE_SCHEMA_PATH" });
  }
}
