import { afterEach, describe, expect, it, vi } from "vitest";
import { DependencyHealth } from "../../src/resilience/dependency-health.js";
import { isStorageFailure, StorageTimeoutError, withinStorageTimeout } from "../../src/resilience/storage-failure.js";
import { MemoryGraphError } from "../../src/errors.js";
import { setLogger } from "../../src/logger.js";

describe("isStorageFailure", () => {
  const coded = (code: string) => Object.assign(new Error("x"), { code });
  const named = (name: string) => Object.assign(new Error("x"), { name });
  it.each([
    { error: coded("ECONNREFUSED"), outage: true },
    { error: coded("08006"), outage: true },
    { error: coded("57P01"), outage: true },
    { error: coded("SQLITE_READONLY"), outage: true },
    { error: coded("SQLITE_IOERR_WRITE"), outage: true },
    { error: named("ClientOfflineError"), outage: true },
    { error: new Error("Connection terminated unexpectedly"), outage: true },
    { error: new StorageTimeoutError(10), outage: true },
    { error: new AggregateError([coded("ECONNREFUSED")]), outage: true },
    { error: new Error("wrapped", { cause: coded("ECONNRESET") }), outage: true },
    { error: coded("23505"), outage: false },
    { error: coded("SQLITE_CONSTRAINT"), outage: false },
    { error: new MemoryGraphError("INVALID_INPUT", "bad", { kind: "user" }), outage: false },
    { error: new TypeError("undefined is not a function"), outage: false },
    { error: "a string", outage: false },
  ])("$error.message ($error.code) is an outage: $outage", ({ error, outage }) => {
    expect(isStorageFailure(error)).toBe(outage);
  });

  it("bounds a call that never settles", async () => {
    const started = Date.now();
    await expect(withinStorageTimeout(new Promise(() => undefined), 50)).rejects.toBeInstanceOf(StorageTimeoutError);
    expect(Date.now() - started).toBeLessThan(1000);
    await expect(withinStorageTimeout(Promise.resolve(7), 50)).resolves.toBe(7);
  });
});

describe("DependencyHealth", () => {
  afterEach(() => setLogger(null));

  function capture() {
    const lines: { level: string; event: string }[] = [];
    const at = (level: string) => (_fields: unknown, event: string) => void lines.push({ level, event });
    setLogger({ debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") });
    return lines;
  }

  it("logs a loss once and a recovery once, probing with back-off until the dependency answers", async () => {
    const lines = capture();
    let answers = false;
    let pings = 0;
    const health = new DependencyHealth(
      [
        {
          name: "session_store",
          engine: "redis",
          ping: async () => {
            pings += 1;
            if (!answers) throw new Error("ECONNREFUSED");
          },
        },
      ],
      { timeoutMs: 100, backoff: { initialMs: 10, maxMs: 40 } },
    );
    const lostAt = performance.now();
    for (let i = 0; i < 5; i += 1) health.reportFailure("session_store", new Error("connection refused"));
    expect(health.isDown("session_store")).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await vi.waitFor(() => expect(pings).toBeGreaterThanOrEqual(2), { timeout: 5_000 });
    // Bounded: probes 10, 20, then 40 ms apart at most often (a busy machine only makes them rarer).
    expect(pings).toBeLessThanOrEqual(3 + Math.ceil((performance.now() - lostAt) / 40));
    answers = true;
    await vi.waitFor(() => expect(health.isDown("session_store")).toBe(false), { timeout: 5_000 });
    expect(lines.filter((l) => l.event === "dependency.lost")).toEqual([{ level: "warn", event: "dependency.lost" }]);
    expect(lines.filter((l) => l.event === "dependency.recovered")).toEqual([{ level: "info", event: "dependency.recovered" }]);
    expect(health.statuses()[0]).toMatchObject({ ok: true, outages: 1, error: null });
    health.close();
  });

  it("warns of degraded turns once per outage and counts them all", () => {
    const lines = capture();
    const health = new DependencyHealth([{ name: "session_store", engine: "redis", ping: async () => undefined }], { timeoutMs: 100 });
    health.reportFailure("session_store", new Error("offline"));
    for (let i = 0; i < 3; i += 1) health.countDegraded("session_store");
    health.reportSuccess("session_store");
    health.reportFailure("session_store", new Error("offline"));
    health.countDegraded("session_store");
    expect(lines.filter((l) => l.event === "turn.degraded").map((l) => l.level)).toEqual(["warn", "debug", "debug", "warn"]);
    expect(health.statuses()[0]).toMatchObject({ degradedTurns: 4, outages: 2 });
    health.close();
  });

  it("names the dependency in the refusal, with a Retry-After of at least a second", () => {
    const health = new DependencyHealth([{ name: "memory_store", engine: "postgres", ping: async () => undefined }], { timeoutMs: 100 });
    health.reportFailure("memory_store", new Error("Connection terminated"));
    const error = health.unavailable("memory_store");
    expect(error).toMatchObject({ code: "MEMORY_STORE_UNAVAILABLE", kind: "upstream", dependency: "memory_store" });
    expect(error.message).toContain("postgres");
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    health.close();
  });

  it("answers a readiness check within its timeout when a ping hangs", async () => {
    const health = new DependencyHealth(
      [
        { name: "session_store", engine: "redis", ping: () => new Promise(() => undefined) },
        { name: "memory_store", engine: "sqlite", ping: async () => undefined },
      ],
      { timeoutMs: 5000 },
    );
    const started = Date.now();
    const statuses = await health.check(100);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(statuses.map((s) => [s.name, s.ok])).toEqual([
      ["session_store", false],
      ["memory_store", true],
    ]);
    health.close();
  });
});
