import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { serve } from "@hono/node-server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { setLogLevel, setLogSink } from "../../src/logger.js";
import { KEY_A, testServer, type TestServer } from "./helpers.js";

/**
 * A client that goes away mid-request is not a fault of the service: a body shorter than its
 * Content-Length is logged at WARN (the request line), without a stack, never as an internal error.
 */
describe("a client that goes away", () => {
  let server: TestServer;
  let listening: Server;
  const logs: string[] = [];

  afterEach(async () => {
    await new Promise((resolve) => listening.close(resolve));
    await server.close();
    setLogSink((line) => process.stdout.write(`${line}\n`));
    setLogLevel("silent");
    logs.length = 0;
  });

  async function start(): Promise<number> {
    server = await testServer();
    setLogLevel("info");
    setLogSink((line) => logs.push(line));
    await new Promise<void>((resolve) => {
      listening = serve({ fetch: server.app.fetch, hostname: "127.0.0.1", port: 0 }, () => resolve()) as Server;
    });
    return (listening.address() as AddressInfo).port;
  }

  it.each(["/v1/turns", "/v1/users/u1/sessions/import"])("sending a body shorter than its Content-Length to %s is logged at WARN, without a stack", async (route) => {
    const port = await start();
    const socket = net.connect(port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(
      `POST ${route} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY_A}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"user_id":"u1"`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await vi.waitFor(() => expect(logs.some((line) => line.includes('"http.request"'))).toBe(true), { timeout: 10_000 });
    const parsed = logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed.filter((line) => line.severity === "ERROR")).toEqual([]);
    expect(logs.join("\n")).not.toContain("stack");
    expect(parsed.find((line) => line.event === "http.request")).toMatchObject({ severity: "WARNING", status: 400 });
    expect(await server.memory.persistence.store.search(["tenantA"], { limit: 10 })).toEqual([]);
  });
});
