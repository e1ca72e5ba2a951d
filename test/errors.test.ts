import { uuid6 } from "@langchain/langgraph-checkpoint";
import { createClient } from "redis";
import { describe, expect, it } from "vitest";
import { RedisCheckpointer } from "../src/entries/redis.js";
import { SqliteCheckpointer } from "../src/entries/sqlite.js";
import { ERROR_CODES, MemoryGraphError } from "../src/errors.js";
import { statusOf } from "../src/server/http-error.js";

const checkpoint = { v: 4, id: uuid6(-1), ts: new Date().toISOString(), channel_values: {}, channel_versions: {}, versions_seen: {} };
const metadata = { source: "input" as const, step: -1, parents: {} };

/** The error `work` throws (or rejects with). */
async function thrown(work: () => unknown): Promise<MemoryGraphError> {
  try {
    await work();
  } catch (error) {
    expect(error).toBeInstanceOf(MemoryGraphError);
    return error as MemoryGraphError;
  }
  throw new Error("expected an error");
}

describe("the error catalogue", () => {
  it("gives every code one kind, of user, system or upstream", () => {
    for (const kind of Object.values(ERROR_CODES)) expect(["user", "system", "upstream"]).toContain(kind);
  });

  it.each([
    { code: "INVALID_INPUT", kind: "user", status: 400 },
    { code: "MESSAGE_ID_CONFLICT", kind: "user", status: 409 },
    { code: "UNAUTHORIZED", kind: "user", status: 401 },
    { code: "SESSION_NOT_FOUND", kind: "user", status: 404 },
    { code: "METHOD_NOT_ALLOWED", kind: "user", status: 405 },
    { code: "PAYLOAD_TOO_LARGE", kind: "user", status: 413 },
    { code: "RATE_LIMITED", kind: "user", status: 429 },
    { code: "SUMMARIZER_EMPTY_OUTPUT", kind: "upstream", status: 502 },
    { code: "GRAPH_CLOSED", kind: "system", status: 503 },
    { code: "CHECKPOINT_CONFIG_INVALID", kind: "system", status: 500 },
  ] as const)("answers $code ($kind) with HTTP $status", ({ code, kind, status }) => {
    expect(ERROR_CODES[code]).toBe(kind);
    expect(statusOf(code, kind)).toBe(status);
  });
});

// A checkpointer called without a thread or checkpoint id is a fault of the code that calls it
// (the graph), never of whoever sent the turn: a system error, HTTP 500, not a 400.
describe("faults of this system are system errors", () => {
  const saver = SqliteCheckpointer.fromPath(":memory:");

  it.each([
    { missing: "configurable", call: () => saver.put({}, checkpoint, metadata, {}) },
    { missing: "thread_id", call: () => saver.put({ configurable: {} }, checkpoint, metadata, {}) },
    { missing: "checkpoint_id", call: () => saver.putWrites({ configurable: { thread_id: "t" } }, [], "task") },
  ])("a checkpointer call without $missing", async ({ missing, call }) => {
    const error = await thrown(call);
    expect(error).toMatchObject({ code: "CHECKPOINT_CONFIG_INVALID", kind: "system", field: missing });
    expect(statusOf(error.code, error.kind)).toBe(500);
  });

  it("a Redis checkpointer configured with a TTL that is not a positive integer", async () => {
    const client = createClient({ url: "redis://127.0.0.1:6379" });
    const error = await thrown(() => new RedisCheckpointer(client, { ttlSeconds: 0 }));
    expect(error).toMatchObject({ kind: "system", field: "ttlSeconds" });
    expect(statusOf(error.code, error.kind)).toBe(500);
  });
});
