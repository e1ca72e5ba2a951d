import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { afterEach, describe, expect, it } from "vitest";
import { loadEnv } from "../../src/config.js";
import { KEY_A, testServer, type TestServer } from "./helpers.js";

/** CORS over real HTTP: off unless origins are listed; then preflights are answered and listed origins may read answers. */
describe("CORS", () => {
  let server: TestServer;
  let listening: Server;
  const app = "https://app.example.com";

  afterEach(async () => {
    await new Promise((resolve) => listening.close(resolve));
    await server.close();
  });

  async function start(corsOrigins?: string[]): Promise<string> {
    server = await testServer({}, corsOrigins ? { corsOrigins } : {});
    await new Promise<void>((resolve) => {
      listening = serve({ fetch: server.app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve()) as Server;
    });
    return `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  }

  const preflight = (base: string, origin: string) =>
    fetch(`${base}/v1/users/u1/facts`, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "GET", "access-control-request-headers": "authorization,content-type" },
    });

  it("is off by default: a preflight is refused like any keyless request, and answers carry no CORS headers", async () => {
    const base = await start();
    const res = await preflight(base, app);
    expect(res.status).toBe(401);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const get = await fetch(`${base}/v1/users/u1/facts`, { headers: { origin: app, authorization: `Bearer ${KEY_A}` } });
    expect(get.status).toBe(200);
    expect(get.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("answers a listed origin's preflight without a key, and lets it read answers and their headers", async () => {
    const base = await start([app, "http://localhost:5173"]);
    const res = await preflight(base, app);
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(app);
    expect(res.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("authorization");
    expect(res.headers.get("access-control-allow-methods")).toContain("PATCH");
    const get = await fetch(`${base}/v1/users/u1/facts`, { headers: { origin: app, authorization: `Bearer ${KEY_A}` } });
    expect(get.status).toBe(200);
    expect(get.headers.get("access-control-allow-origin")).toBe(app);
    expect(get.headers.get("access-control-expose-headers")).toContain("X-Request-Id");
    expect(get.headers.get("vary")).toContain("Origin");
    // A refused key is still refused, and still readable by the page (so it can say why).
    const refused = await fetch(`${base}/v1/users/u1/facts`, { headers: { origin: app, authorization: "Bearer wrong" } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("access-control-allow-origin")).toBe(app);
  });

  it("gives an origin not listed nothing to read", async () => {
    const base = await start([app]);
    const res = await preflight(base, "https://evil.example.net");
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const get = await fetch(`${base}/v1/users/u1/facts`, { headers: { origin: "https://evil.example.net", authorization: `Bearer ${KEY_A}` } });
    expect(get.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("CORS_ORIGINS", () => {
  it("is a list of origins; unset is none", () => {
    expect(loadEnv({}).CORS_ORIGINS).toEqual([]);
    expect(loadEnv({ CORS_ORIGINS: "https://app.example.com, http://localhost:5173/" }).CORS_ORIGINS).toEqual(["https://app.example.com", "http://localhost:5173"]);
  });

  it.each(["app.example.com", "https://app.example.com/path", "ftp://x.example", "*"])("refuses %s, naming the variable", (value) => {
    expect(() => loadEnv({ CORS_ORIGINS: value })).toThrow(/CORS_ORIGINS/);
  });
});
