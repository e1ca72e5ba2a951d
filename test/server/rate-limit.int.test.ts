import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openRateLimitCounter, rateLimitEngineOf, type RateLimitCounter } from "../../src/app/rate-limit-store.js";
import { setLogger, type LogFields } from "../../src/logger.js";
import { requestLimiter } from "../../src/server/rate-limit.js";

describe("where the rate limit counts", () => {
  it.each([
    { options: { backend: "sqlite", sqlitePath: "m.db", redisUrl: "redis://h:6379" }, engine: "redis" },
    { options: { backend: "postgres", databaseUrl: "postgres://h/db" }, engine: "postgres" },
    { options: { backend: "redis", redisUrl: "redis://h:6379", databaseUrl: "postgres://h/db" }, engine: "redis" },
    { options: { backend: "sqlite", sqlitePath: "m.db" }, engine: "sqlite" },
    { options: { backend: "sqlite", sqlitePath: ":memory:" }, engine: "memory" },
    { options: { backend: "memory" }, engine: "memory" },
  ] as const)("$options.backend with $options → $engine", ({ options, engine }) => {
    expect(rateLimitEngineOf(options)).toBe(engine);
  });
});

describe("a shared counter", () => {
  let counter: RateLimitCounter | undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-rate-"));
  afterEach(async () => {
    setLogger(null);
    await counter?.close();
    counter = undefined;
  });

  it("counts in the SQLite file, so a second counter on the file sees the first one's requests", async () => {
    const file = path.join(dir, "a.db");
    counter = await openRateLimitCounter({ points: 3, backend: "sqlite", sqlitePath: file });
    const other = await openRateLimitCounter({ points: 3, backend: "sqlite", sqlitePath: file });
    try {
      const [a, b] = [requestLimiter(3, counter.limiter), requestLimiter(3, other.limiter)];
      const decisions = [await a.take("k"), await b.take("k"), await a.take("k"), await b.take("k")];
      expect(decisions.map((d) => [d.allowed, d.remaining])).toEqual([
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
      ]);
    } finally {
      await other.close();
    }
  });

  it("counts in the process, logged once, while Redis does not answer", async () => {
    const lines: LogFields[] = [];
    setLogger({ debug: () => undefined, info: (f) => lines.push(f), warn: (f) => lines.push(f), error: (f) => lines.push(f) });
    counter = await openRateLimitCounter({ points: 2, backend: "memory", redisUrl: "redis://127.0.0.1:6379" });
    expect(counter.engine).toBe("redis");
    const limiter = requestLimiter(2, counter.limiter);
    const key = `k-${Date.now()}-${Math.random()}`;
    expect((await limiter.take(key)).remaining).toBe(1);
    await counter.close();
    counter = undefined;
    // The connection is gone: the shared count fails at once and the process counts on its own.
    const local = [await limiter.take(key), await limiter.take(key), await limiter.take(key)];
    expect(local.map((d) => d.allowed)).toEqual([true, true, false]);
    expect(lines.filter((l) => l.event === "rate_limit.store_failed")).toHaveLength(1);
  });
});
