import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { OpenAIEmbeddings } from "@langchain/openai";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMemoryGraph, graphDepsOf } from "../../src/app/create-memory-graph.js";
import { optionsFromEnv } from "../../src/app/options-from-env.js";
import { loadEnv, logLevelFromEnv } from "../../src/config.js";
import { setLogger, setLogLevel, setLogSink, type Logger, type LogFields } from "../../src/logger.js";

/** A logger that keeps what it is given. */
function collecting(): Logger & { lines: (LogFields & { event: string })[] } {
  const lines: (LogFields & { event: string })[] = [];
  const keep = (fields: LogFields, event: string) => void lines.push({ ...fields, event });
  return { lines, debug: keep, info: keep, warn: keep, error: keep };
}

describe("the library's logger option", () => {
  let dir = "";
  const processLines: string[] = [];

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-logger-"));
    // Whatever reaches the process-wide logger is caught here, at every level.
    setLogLevel("debug");
    setLogSink((line) => processLines.push(line));
  });
  afterEach(() => {
    processLines.length = 0;
    setLogger(null);
  });
  afterAll(() => {
    setLogSink((line) => process.stdout.write(`${line}\n`));
    setLogLevel("info");
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("sends each graph's events to its own logger, none to the process's, with turns of both at once", async () => {
    const [a, b] = [collecting(), collecting()];
    const [pathA, pathB] = [path.join(dir, "a.db"), path.join(dir, "b.db")];
    const graphA = await createMemoryGraph({ sqlitePath: pathA, logger: a, limits: { window: { maxMessages: 2 } } });
    const graphB = await createMemoryGraph({ sqlitePath: pathB, logger: b, limits: { window: { maxMessages: 2 } } });
    await Promise.all(
      ["one", "two", "three"].flatMap((message) => [
        graphA.runTurn({ tenantId: "t", userId: "a", sessionId: "s", message }),
        graphB.runTurn({ tenantId: "t", userId: "b", sessionId: "s", message }),
      ]),
    );
    await Promise.all([graphA.close(), graphB.close()]);

    expect(a.lines.find((line) => line.event === "persistence_opened")).toMatchObject({ path: pathA });
    expect(b.lines.find((line) => line.event === "persistence_opened")).toMatchObject({ path: pathB });
    expect(JSON.stringify(a.lines)).not.toContain(pathB);
    expect(JSON.stringify(b.lines)).not.toContain(pathA);
    // Window trims are logged at debug from inside the turns: each graph's stay with it.
    expect(a.lines.map((line) => line.event)).toContain("window_trimmed");
    expect(b.lines.map((line) => line.event)).toContain("window_trimmed");
    expect(processLines).toEqual([]);
  });

  it.each([false, "silent"] as const)("logs nothing anywhere with logger: %s", async (logger) => {
    const graph = await createMemoryGraph({ sqlitePath: path.join(dir, `off-${String(logger)}.db`), logger });
    const turn = await graph.runTurn({ tenantId: "t", userId: "u", sessionId: "s", message: "hello" });
    await graph.close();
    expect(turn.status).toBe("OK");
    expect(processLines).toEqual([]);
  });

  it("routes everything with setLogger, and silences it with setLogger(false)", async () => {
    const host = collecting();
    setLogger(host);
    const graph = await createMemoryGraph({ sqlitePath: path.join(dir, "host.db") });
    await graph.runTurn({ tenantId: "t", userId: "u", sessionId: "s", message: "hello" });
    setLogger(false);
    await graph.close();
    expect(host.lines.map((line) => line.event)).toContain("persistence_opened");
    expect(processLines).toEqual([]);
  });

  it("reads LOG_LEVEL for the library when it is one of ours, and leaves a host's own value alone", () => {
    expect(logLevelFromEnv({ LOG_LEVEL: "silent" })).toBe("silent");
    expect(logLevelFromEnv({ LOG_LEVEL: "warn" })).toBe("warn");
    expect(logLevelFromEnv({ LOG_LEVEL: "trace" })).toBeUndefined();
    expect(logLevelFromEnv({})).toBeUndefined();
  });
});

describe("the library's defaults are the service's", () => {
  it("computes no vectors when no model is configured (lexical recall), as the service does", () => {
    const library = graphDepsOf({}).embeddings;
    const service = graphDepsOf(optionsFromEnv(loadEnv({}))).embeddings;
    expect(library).toBeUndefined();
    expect(service).toBeUndefined();
  });

  it("embeds with OpenAI's text-embedding-3-small when OpenAI is configured, as the service does", () => {
    const library = graphDepsOf({ openai: { apiKey: "sk-test", model: "gpt-4o-mini", timeoutMs: 1000 } }).embeddings;
    const service = graphDepsOf(optionsFromEnv(loadEnv({ OPENAI_API_KEY: "sk-test" }))).embeddings;
    for (const embeddings of [library, service]) {
      expect(embeddings).toBeInstanceOf(OpenAIEmbeddings);
      expect((embeddings as OpenAIEmbeddings).model).toBe("text-embedding-3-small");
    }
  });

  it("keeps recall lexical with embeddings: null", () => {
    expect(graphDepsOf({ embeddings: null }).embeddings).toBeUndefined();
  });
});
