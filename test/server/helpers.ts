import { createHash } from "node:crypto";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import type { Hono } from "hono";
import { createMemoryGraph, type MemoryGraph, type MemoryGraphOptions } from "../../src/app/create-memory-graph.js";
import { setLogLevel } from "../../src/logger.js";
import type { ServerEnv } from "../../src/server/context.js";
import { createServer, type ServerOptions } from "../../src/server/create-server.js";

setLogLevel("silent");

export const KEY_A = "key-for-tenant-a";
export const KEY_B = "key-for-tenant-b";

export interface TestServer {
  app: Hono<ServerEnv>;
  memory: MemoryGraph;
  /** A request to the app, JSON-encoding `body` and sending `key` as a bearer token. */
  call(method: string, path: string, options?: { key?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

/** A server on a fresh in-memory graph (offline responder unless a chat model is given). */
export async function testServer(
  graph: MemoryGraphOptions = {},
  server: Partial<Omit<ServerOptions, "memory">> = {},
): Promise<TestServer> {
  const digestB = createHash("sha256").update(KEY_B).digest("hex");
  const memory = await createMemoryGraph({
    backend: "memory",
    chatModel: null,
    classifierModel: null,
    summaryModel: null,
    retry: { retries: 0, baseDelayMs: 1 },
    ...graph,
  });
  const app = createServer({ memory, apiKeys: `tenantA:${KEY_A},tenantB:sha256:${digestB}`, ...server });
  return {
    app,
    memory,
    call: (method, path, options = {}) => {
      const headers: Record<string, string> = { ...options.headers };
      const key = options.key === undefined ? KEY_A : options.key;
      if (key !== null) headers.authorization = `Bearer ${key}`;
      let body: string | undefined;
      if (options.body !== undefined) {
        body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
        headers["content-type"] ??= "application/json";
      }
      return Promise.resolve(app.request(path, { method, headers, body }));
    },
    close: () => memory.close(),
  };
}

/** A chat model that streams each reply character by character. */
export function streamingModel(responses: string[]): FakeListChatModel {
  return new FakeListChatModel({ responses });
}

/** Parses a server-sent-events body into its events. */
export function parseSse(text: string): { event: string; data: unknown }[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const lines = block.split("\n");
      const event = lines.find((line) => line.startsWith("event:"))?.slice(6).trim() ?? "message";
      const data = lines
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, ""))
        .join("\n");
      return { event, data: JSON.parse(data) as unknown };
    });
}

/** Every store item under a tenant (for "nothing stored" and tenancy checks). */
export async function tenantItems(memory: MemoryGraph, tenantId: string) {
  return memory.persistence.store.search([tenantId], { limit: 1000 });
}
