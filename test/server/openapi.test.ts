import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Operation, OperationResults } from "@langchain/langgraph-checkpoint";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { Validator } from "@seriousme/openapi-schema-validator";
import { METHOD_NAME_ALL } from "hono/router";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openApiDocument, openApiJson, openApiPath } from "../../src/server/openapi.js";
import { errorBodySchema } from "../../src/server/http-error.js";
import { turnEventSchema } from "../../src/server/turn-response.js";
import { responsesOf, ROUTES, type Status } from "../../src/server/routes.js";
import { FlakyChatModel } from "../support/models.js";
import { parseSse, testServer, type TestServer } from "./helpers.js";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is walked as plain JSON
type Json = Record<string, any>;
const doc = openApiDocument() as Json;
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** The documented operations: method + path template → the route and its documented statuses. */
const operations = Object.entries(doc.paths as Json).flatMap(([template, item]) =>
  METHODS.filter((method) => item[method]).map((method) => ({ method, template, op: item[method] as Json })),
);

const resolve = (value: Json): Json => {
  if (typeof value.$ref !== "string") return value;
  const target = value.$ref.replace(/^#\//, "").split("/").reduce((node: Json, key: string) => node[key], doc);
  return resolve(target);
};

const templateOf = (requestPath: string): string | undefined =>
  Object.keys(doc.paths as Json).find((template) => new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`).test(requestPath));

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("is what openapi.json holds (run `npm run openapi` after changing a route or schema)", () => {
    expect(fs.readFileSync(path.resolve("openapi.json"), "utf8")).toBe(openApiJson());
  });

  it("is served at GET /openapi.json without a key", async () => {
    const server = await testServer();
    const res = await server.call("GET", "/openapi.json", { key: null });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(doc);
    await server.close();
  });

  it("documents every route the server registers, and registers every documented one", async () => {
    const server = await testServer();
    // A route's own middleware (its checks, its body limit) is registered beside its handler: each route counts once.
    const registered = [...new Set(server.app.routes.filter((route) => route.method !== METHOD_NAME_ALL).map((route) => `${route.method} ${openApiPath(route.path)}`))];
    const documented = operations.map(({ method, template }) => `${method.toUpperCase()} ${template}`);
    expect([...registered].sort()).toEqual([...documented].sort());
    await server.close();
  });

  it("asks for the bearer key on exactly the /v1 routes", () => {
    for (const { template, op } of operations) {
      expect(op.security, template).toEqual(template.startsWith("/v1/") ? [{ bearerAuth: [] }] : []);
    }
  });
});

/** A store whose every operation fails while `fault` is set (storage breaking under the service). */
class FaultyStore extends InMemoryStore {
  fault: Error | null = null;
  override async batch<Op extends readonly Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    if (this.fault) throw this.fault;
    return super.batch(operations);
  }
}

interface Case {
  server: () => TestServer;
  method: string;
  path: string;
  body?: unknown;
  key?: string | null;
  headers?: Record<string, string>;
  status: Status;
}

describe("every status the server answers is documented, and every documented status is answered", () => {
  const turn = { user_id: "u1", session_id: "s1", message: "My name is Anong" };
  const servers: Record<string, TestServer> = {};
  const faulty = new FaultyStore();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-openapi-"));

  beforeAll(async () => {
    servers.main = await testServer();
    await servers.main.call("POST", "/v1/turns", { body: { ...turn, message_id: "k1" } });
    // An event, a message to correct and delete, and a summary, for the per-item routes.
    await servers.main.call("POST", "/v1/turns", { body: { ...turn, message: "I want to cancel my order 42 now", message_id: "ev1" } });
    await servers.main.call("POST", "/v1/turns", { body: { ...turn, message: "I have a dog", message_id: "msg1" } });
    const summary = { id: "sum1", text: "Anong said hello.", sessionId: "s1", fromMessageId: "k1", toMessageId: "k1", messageIds: ["k1"], method: "rules" as const, createdAt: "2024-01-01T00:00:00Z" };
    await servers.main.memory.importSessions({ tenantId: "tenantA", userId: "u1" }, { version: 1, userId: "u1", sessions: [], events: [], facts: [], summaries: [summary] });
    servers.limited = await testServer({}, { rateLimitPerMinute: 1 });
    await servers.limited.call("GET", "/v1/users/u1/memory");
    servers.failing = await testServer({ chatModel: new FlakyChatModel(100) });
    servers.draining = await testServer({}, { isDraining: () => true });
    servers.off = await testServer({}, { inspector: false });
    servers.faulty = await testServer({ persistence: { store: faulty, checkpointer: new MemorySaver() } });
    await servers.faulty.call("POST", "/v1/turns", { body: turn });
    faulty.fault = new Error("disk on fire");
    servers.closed = await testServer({ backend: "sqlite", sqlitePath: path.join(dir, "m.db") });
    await servers.closed.call("POST", "/v1/turns", { body: turn });
    await servers.closed.memory.close();
  });

  afterAll(async () => {
    for (const [name, server] of Object.entries(servers)) if (name !== "closed") await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const on = (name: string) => () => servers[name]!;
  const main = on("main");
  const big = { ...turn, message: "x".repeat(300_000) };
  const plainText = { "content-type": "text/plain" };
  const imported = [{ session_id: "old", started_at: "2023-05-08T13:56:00Z", messages: [{ id: "i1", role: "user", text: "My cat is Mali" }] }];
  const users = "/v1/users/u1";
  const message = `${users}/sessions/s1/messages`;
  const itemPaths = [`${users}/facts`, `${users}/facts/name@k1`, `${users}/events`, `${users}/events/ev1`, `${users}/summaries`, `${users}/summaries/sum1`, `${users}/messages`, `${message}/msg1`, `${message}/k1/context`, `${users}/memory/items?q=x`];
  /** One request of each per-item operation (for the answers every /v1 route may give). */
  const itemRequests = [
    ...itemPaths.map((requestPath) => ({ method: "GET", path: requestPath })),
    ...[`${users}/facts/name@k1`, `${users}/events/ev1`, `${users}/summaries/sum1`, `${message}/msg1`].flatMap((requestPath) => [
      { method: "PATCH", path: requestPath, body: requestPath.includes("facts") ? { pinned: true } : requestPath.includes("events") ? { importance: 0.9 } : { text: "corrected" } },
      { method: "DELETE", path: requestPath },
    ]),
    { method: "POST", path: `${users}/facts/name@k1/restore` },
  ];
  const tooBig = { text: "x".repeat(300_000) };
  /** Per item (fact, event, summary, message): read, missing, a bad query, corrections good and bad, deletes. */
  const itemCases = (base: string, id: string, change: unknown, badChange: unknown): Omit<Case, "server">[] => [
    { method: "GET", path: `${base}/${id}`, status: 200 },
    { method: "GET", path: `${base}/nope`, status: 404 },
    { method: "GET", path: `${base}/${id}?x=1`, status: 400 },
    { method: "PATCH", path: `${base}/${id}`, body: change, status: 200 },
    { method: "PATCH", path: `${base}/${id}`, body: badChange, status: 400 },
    { method: "PATCH", path: `${base}/nope`, body: change, status: 404 },
    { method: "PATCH", path: `${base}/${id}`, body: tooBig, status: 413 },
    { method: "PATCH", path: `${base}/${id}`, body: JSON.stringify(change), headers: { "content-type": "text/plain" }, status: 415 },
  ];
  const v1 = [
    { method: "POST", path: "/v1/turns", body: { ...turn, message_id: "k2" } },
    { method: "POST", path: "/v1/turns/stream", body: { ...turn, message_id: "k3" } },
    { method: "GET", path: "/v1/sessions/s1/messages?user_id=u1" },
    { method: "DELETE", path: "/v1/sessions/s9?user_id=u1" },
    { method: "GET", path: "/v1/users/u1/memory" },
    { method: "DELETE", path: "/v1/users/u9" },
    { method: "GET", path: "/v1/users/u1/memory/search?q=name" },
    { method: "POST", path: "/v1/users/u1/sessions/import", body: imported },
    { method: "GET", path: "/v1/users/u1/export" },
    { method: "GET", path: "/v1/users/u1/sessions" },
    { method: "GET", path: "/v1/users" },
    { method: "GET", path: "/v1/users/u1" },
    { method: "GET", path: "/v1/users/u1/entities" },
    { method: "GET", path: "/v1/users/u1/entities/mali" },
    { method: "DELETE", path: "/v1/users/u1/entities/nobody" },
    { method: "DELETE", path: "/v1/users/u1/entities/nobody/relations?type=lives_in&to=pune" },
    ...itemRequests,
  ];
  const cases: Case[] = [
    { server: main, method: "POST", path: "/v1/turns", body: turn, status: 200 },
    { server: main, method: "POST", path: "/v1/turns", body: { ...turn, message_id: "k1" }, status: 200 },
    { server: main, method: "POST", path: "/v1/turns", body: { ...turn, user_id: "u/1" }, status: 400 },
    { server: main, method: "POST", path: "/v1/turns", body: { ...turn, message_id: "k1", message: "other" }, status: 409 },
    { server: main, method: "POST", path: "/v1/turns", body: big, status: 413 },
    { server: main, method: "POST", path: "/v1/turns", body: JSON.stringify(turn), headers: plainText, status: 415 },
    { server: on("failing"), method: "POST", path: "/v1/turns", body: turn, status: 502 },
    { server: main, method: "POST", path: "/v1/turns/stream", body: turn, status: 200 },
    { server: main, method: "POST", path: "/v1/turns/stream", body: { ...turn, message_id: "k1" }, status: 200 },
    { server: on("failing"), method: "POST", path: "/v1/turns/stream", body: turn, status: 200 },
    { server: on("faulty"), method: "POST", path: "/v1/turns/stream", body: turn, status: 200 },
    { server: main, method: "POST", path: "/v1/turns/stream", body: { ...turn, parent_message_id: "nope" }, status: 400 },
    { server: main, method: "POST", path: "/v1/turns/stream", body: { ...turn, message_id: "k1", message: "other" }, status: 409 },
    { server: main, method: "POST", path: "/v1/turns/stream", body: big, status: 413 },
    { server: main, method: "POST", path: "/v1/turns/stream", body: JSON.stringify(turn), headers: plainText, status: 415 },
    { server: main, method: "GET", path: "/v1/sessions/s1/messages?user_id=u1", status: 200 },
    { server: main, method: "GET", path: "/v1/sessions/s1/messages", status: 400 },
    { server: main, method: "GET", path: "/v1/sessions/nope/messages?user_id=u1", status: 404 },
    { server: main, method: "DELETE", path: "/v1/sessions/s2?user_id=u1", status: 200 },
    { server: main, method: "DELETE", path: "/v1/sessions/s2", status: 400 },
    { server: main, method: "GET", path: "/v1/users/u1/memory", status: 200 },
    { server: main, method: "GET", path: "/v1/users/u1/memory?limit=5", status: 400 },
    { server: main, method: "DELETE", path: "/v1/users/u2", status: 200 },
    { server: main, method: "DELETE", path: "/v1/users/a%ED%A0%80b", status: 400 },
    { server: main, method: "GET", path: "/v1/users/u1/memory/search?q=name&limit=3&memory_context=true", status: 200 },
    { server: main, method: "GET", path: "/v1/users/u1/memory/search?limit=3", status: 400 },
    { server: main, method: "POST", path: "/v1/users/u1/sessions/import", body: imported, status: 200 },
    { server: main, method: "POST", path: "/v1/users/u1/sessions/import?classify=true", body: imported, status: 200 },
    { server: main, method: "POST", path: "/v1/users/u1/sessions/import", body: [{ ...imported[0], messages: [{ id: "i2", role: "robot", text: "beep" }] }], status: 400 },
    { server: main, method: "POST", path: "/v1/users/u1/sessions/import", body: [{ ...imported[0], messages: [{ id: "i1", role: "user", text: "other" }] }], status: 409 },
    { server: main, method: "POST", path: "/v1/users/u1/sessions/import", body: [{ ...imported[0], messages: Array.from({ length: 1001 }, (_, i) => ({ id: `x${i}`, role: "user", text: "hi" })) }], status: 413 },
    { server: main, method: "POST", path: "/v1/users/u1/sessions/import", body: JSON.stringify(imported), headers: plainText, status: 415 },
    { server: main, method: "GET", path: "/v1/users/u1/export", status: 200 },
    { server: main, method: "GET", path: "/v1/users/u1/export?format=csv", status: 400 },
    { server: main, method: "GET", path: "/v1/users/u1/sessions?limit=2&offset=0", status: 200 },
    { server: main, method: "GET", path: "/v1/users/u1/sessions?limit=0", status: 400 },
    { server: main, method: "GET", path: "/v1/users?prefix=u&limit=2", status: 200 },
    { server: main, method: "GET", path: "/v1/users?limit=0", status: 400 },
    { server: main, method: "GET", path: "/v1/users/u1", status: 200 },
    { server: main, method: "GET", path: "/v1/users/u1?limit=1", status: 400 },
    { server: main, method: "GET", path: "/v1/users/nobody", status: 404 },
    { server: main, method: "GET", path: "/v1/users/u1/entities?query=ma&limit=5", status: 200 },
    { server: main, method: "GET", path: "/v1/users/u1/entities?limit=0", status: 400 },
    { server: main, method: "GET", path: "/v1/users/u1/entities/mali", status: 200 },
    { server: main, method: "GET", path: "/v1/users/u1/entities/mali?x=1", status: 400 },
    { server: main, method: "GET", path: "/v1/users/u1/entities/nobody", status: 404 },
    { server: main, method: "DELETE", path: "/v1/users/u1/entities/nobody", status: 200 },
    { server: main, method: "DELETE", path: "/v1/users/u1/entities/nobody?x=1", status: 400 },
    { server: main, method: "DELETE", path: "/v1/users/u1/entities/nobody/relations?type=lives_in&to=pune", status: 200 },
    { server: main, method: "DELETE", path: "/v1/users/u1/entities/nobody/relations?type=lives_in", status: 400 },
    ...([
      { method: "GET", path: `${users}/facts`, status: 200 },
      { method: "GET", path: `${users}/facts?current=maybe`, status: 400 },
      ...itemCases(`${users}/facts`, "name@k1", { pinned: true }, { colour: "red" }),
      { method: "PATCH", path: `${users}/facts/name@k1`, body: { value: "Bob" }, status: 200 },
      { method: "PATCH", path: `${users}/facts/name@k1`, body: { value: "Carl" }, status: 409 },
      { method: "POST", path: `${users}/facts/name@k1/restore?x=1`, status: 400 },
      { method: "POST", path: `${users}/facts/name@k1/restore`, status: 200 },
      { method: "POST", path: `${users}/facts/name@k1/restore`, status: 409 },
      { method: "POST", path: `${users}/facts/nope/restore`, status: 404 },
      { method: "GET", path: `${users}/events?type=INQUIRY&limit=5`, status: 200 },
      { method: "GET", path: `${users}/events?limit=x`, status: 400 },
      ...itemCases(`${users}/events`, "ev1", { importance: 0.9 }, { importance: 2 }),
      { method: "GET", path: `${users}/summaries`, status: 200 },
      { method: "GET", path: `${users}/summaries?offset=-1`, status: 400 },
      ...itemCases(`${users}/summaries`, "sum1", { text: "Anong greeted us." }, { text: "" }),
      { method: "GET", path: `${users}/messages?session_id=s1&limit=2`, status: 200 },
      { method: "GET", path: `${users}/messages?limit=0`, status: 400 },
      ...itemCases(message, "msg1", { text: "I have a cat" }, { text: 5 }),
      { method: "GET", path: `${users}/memory/items?q=order&kinds=event,message&min_importance=0.5&metadata=${encodeURIComponent('{"session_id":"s1"}')}`, status: 200 },
      { method: "GET", path: `${users}/memory/items?q=order&kinds=robots`, status: 400 },
      { method: "GET", path: `${message}/k1/context`, status: 200 },
      { method: "GET", path: `${message}/nope/context`, status: 404 },
      { method: "GET", path: `${message}/k1/context?x=1`, status: 400 },
      ...[`${users}/facts/name@k1`, `${users}/events/ev1`, `${users}/summaries/sum1`, `${message}/msg1`].flatMap((requestPath) => [
        { method: "DELETE", path: requestPath, status: 200 as const },
        { method: "DELETE", path: `${requestPath}?x=1`, status: 400 as const },
      ]),
    ] satisfies Omit<Case, "server">[]).map((request) => ({ ...request, server: main })),
    ...v1.map((request) => ({ ...request, server: main, key: null, status: 401 as const })),
    ...v1.map((request) => ({ ...request, server: on("limited"), status: 429 as const })),
    ...v1.map((request) => ({ ...request, server: on("faulty"), status: 500 as const })),
    ...v1.map((request) => ({ ...request, server: on("closed"), status: 503 as const })),
    ...["/v1/turns", "/v1/turns/stream", "/v1/sessions/s1/messages", "/v1/sessions/s1", "/v1/users/u1/memory", "/v1/users", "/v1/users/u1", "/v1/users/u1/facts/name@k1/restore", "/v1/users/u1/memory/search", "/v1/users/u1/sessions/import", "/v1/users/u1/export", "/v1/users/u1/sessions", "/v1/users/u1/entities", "/v1/users/u1/entities/mali", "/v1/users/u1/entities/mali/relations", ...itemPaths.map((requestPath) => requestPath.split("?")[0]!), "/healthz", "/readyz", "/openapi.json", "/inspector", "/inspector/inspector.css"].map(
      (requestPath) => ({ server: main, method: requestPath.startsWith("/v1/turns") ? "GET" : "PUT", path: requestPath, status: 405 as const }),
    ),
    { server: main, method: "GET", path: "/healthz", key: null, status: 200 },
    { server: main, method: "GET", path: "/readyz", key: null, status: 200 },
    { server: on("draining"), method: "GET", path: "/readyz", key: null, status: 503 },
    { server: main, method: "GET", path: "/openapi.json", key: null, status: 200 },
    { server: main, method: "GET", path: "/inspector", key: null, status: 200 },
    { server: main, method: "GET", path: "/inspector/inspector.js", key: null, status: 200 },
    { server: main, method: "GET", path: "/inspector/index.html", key: null, status: 404 },
    { server: on("off"), method: "GET", path: "/inspector", key: null, status: 404 },
  ];

  it("answers each case as expected, with a body and headers the document describes", async () => {
    const observed = new Set<string>();
    const headersSeen = new Set<string>();
    for (const request of cases) {
      const where = `${request.method} ${request.path} (expected ${request.status})`;
      const res = await request.server().call(request.method, request.path, { body: request.body, key: request.key, headers: request.headers });
      expect(res.status, where).toBe(request.status);
      const template = templateOf(request.path.split("?")[0]!);
      expect(template, where).toBeDefined();
      const item = (doc.paths as Json)[template!];
      const op = item[request.method.toLowerCase()] as Json | undefined;
      if (!op) {
        // Another method on a documented path: each operation there says it may answer 405, with Allow.
        expect(res.status, where).toBe(405);
        errorBodySchema.parse(await res.json());
        for (const method of METHODS.filter((m) => item[m])) {
          expect(Object.keys(resolve(item[method].responses["405"]).headers), where).toContain("Allow");
          expect(res.headers.get("allow"), where).toContain(method.toUpperCase());
          observed.add(`${item[method].operationId} 405`);
          headersSeen.add(`${item[method].operationId} 405 Allow`);
        }
        continue;
      }
      observed.add(`${op.operationId} ${res.status}`);
      const response = op.responses[String(res.status)] as Json | undefined;
      expect(response, `${where}: status not documented`).toBeDefined();
      const documented = resolve(response!);
      const spec = responsesOf(ROUTES[op.operationId as keyof typeof ROUTES])[request.status]!;
      for (const name of ["Idempotent-Replayed", "Allow", "Retry-After", "WWW-Authenticate", "X-Request-Id"]) {
        if (res.headers.has(name)) {
          expect(Object.keys(documented.headers ?? {}), `${where}: header ${name}`).toContain(name);
          headersSeen.add(`${op.operationId} ${res.status} ${name}`);
        }
      }
      const type = Object.keys(documented.content ?? {})[0];
      expect(res.headers.get("content-type") ?? "", where).toContain(type);
      if (spec.events) {
        const events = parseSse(await res.text());
        for (const event of events) turnEventSchema.parse(event);
        expect(events.at(-1)?.event, where).toMatch(/^(result|error)$/);
      } else if (spec.text) {
        expect((await res.text()).length, where).toBeGreaterThan(0);
      } else {
        spec.json!.parse(await res.json());
      }
    }
    const documentedPairs = operations.flatMap(({ op }) => Object.keys(op.responses).map((status) => `${op.operationId} ${status}`));
    expect([...observed].sort()).toEqual([...documentedPairs].sort());
    expect([...headersSeen]).toEqual(
      expect.arrayContaining(["createTurn 200 Idempotent-Replayed", "streamTurn 200 Idempotent-Replayed", "createTurn 405 Allow", "createTurn 401 WWW-Authenticate", "createTurn 429 Retry-After"]),
    );
  }, 60_000);
});
