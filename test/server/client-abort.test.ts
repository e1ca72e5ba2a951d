import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { serve } from "@hono/node-server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { setLogLevel, setLogSink } from "../../src/logger.js";
import { GatedChatModel, HalfStreamedChatModel } from "../support/models.js";
import { KEY_A, testServer, type TestServer } from "./helpers.js";

/**
 * A client that goes away mid-request is not a fault of the service: a body shorter than its
 * Content-Length is logged at WARN (the request line), without a stack, never as an internal error;
 * a client that aborts a running turn is logged at INFO, and the turn is still stored whole.
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

  async function start(graph: Parameters<typeof testServer>[0] = {}): Promise<number> {
    server = await testServer(graph);
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

  const turnBody = JSON.stringify({ user_id: "u1", session_id: "s1", message: "hello", message_id: "m1" });

  /** Sends a whole turn request over a raw connection, which the test then closes as a client would. */
  async function sendTurn(port: number, route: string): Promise<{ socket: net.Socket; received: () => string }> {
    const socket = net.connect(port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    let received = "";
    socket.on("data", (chunk: Buffer) => (received += chunk.toString()));
    socket.write(
      `POST ${route} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY_A}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(turnBody)}\r\n\r\n${turnBody}`,
    );
    return { socket, received: () => received };
  }

  /** Waits until the server has seen the client's connection close (the turn is still waiting on its model). */
  async function serverSeesNoConnection(): Promise<void> {
    const count = () => new Promise<number>((resolve, reject) => listening.getConnections((error, n) => (error ? reject(error) : resolve(n))));
    await vi.waitFor(async () => expect(await count()).toBe(0), { timeout: 10_000 });
  }

  /** Logs at INFO or WARN only, no stack; the turn stored whole, and a retry of its message_id replays. */
  async function expectQuietAbortAndWholeTurn(port: number): Promise<void> {
    await vi.waitFor(() => expect(logs.some((line) => line.includes('"http.request"'))).toBe(true), { timeout: 10_000 });
    for (const event of ["turn.usage", "http.client_closed"]) {
      await vi.waitFor(() => expect(logs.some((line) => line.includes(`"${event}"`))).toBe(true), { timeout: 10_000 });
    }
    const parsed = logs.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed.filter((line) => !["INFO", "WARNING"].includes(line.severity as string))).toEqual([]);
    expect(logs.join("\n")).not.toContain("stack");
    const request = parsed.find((line) => line.event === "http.request");
    expect(request).toMatchObject({ status: 200 });
    expect(parsed.find((line) => line.event === "http.client_closed")).toMatchObject({ severity: "INFO", request_id: request?.request_id, route: request?.route });
    const thread = await server.call("GET", "/v1/sessions/s1/messages?user_id=u1");
    const { messages } = (await thread.json()) as { messages: { id: string; role: string; text: string }[] };
    expect(messages.map(({ role, text }) => ({ role, text }))).toEqual([
      { role: "user", text: "hello" },
      { role: "assistant", text: "a whole answer" },
    ]);
    expect(messages[0]?.id).toBe("m1");
    const retry = await fetch(`http://127.0.0.1:${port}/v1/turns`, {
      method: "POST",
      headers: { authorization: `Bearer ${KEY_A}`, "content-type": "application/json" },
      body: turnBody,
    });
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await retry.json()).toMatchObject({ replayed: true, candidate: { text: "a whole answer" } });
  }

  it("aborting a streamed turn after its first token is logged at INFO, and the turn is stored whole", async () => {
    const model = new HalfStreamedChatModel(["a whole answer"]);
    const port = await start({ chatModel: model });
    const client = await sendTurn(port, "/v1/turns/stream");
    await vi.waitFor(() => expect(client.received()).toContain("event: token"), { timeout: 10_000 });
    client.socket.destroy();
    await serverSeesNoConnection();
    model.release();
    await vi.waitFor(() => expect(model.answered).toBe(1), { timeout: 10_000 });
    await expectQuietAbortAndWholeTurn(port);
  });

  it("aborting a JSON turn before its answer is logged at INFO, and the turn is stored whole", async () => {
    const model = new GatedChatModel(["a whole answer"]);
    const port = await start({ chatModel: model });
    const client = await sendTurn(port, "/v1/turns");
    await vi.waitFor(() => expect(model.calls).toBe(1), { timeout: 10_000 });
    client.socket.destroy();
    await serverSeesNoConnection();
    model.release();
    await vi.waitFor(() => expect(model.answered).toBe(1), { timeout: 10_000 });
    await expectQuietAbortAndWholeTurn(port);
  });
});
