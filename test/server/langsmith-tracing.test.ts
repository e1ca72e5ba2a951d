import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startService, waitFor } from "../support/service-process.js";

/** A stand-in LangSmith API: answers every call and keeps what was posted (runs, batches, multipart). */
function fakeLangSmith() {
  const posts: { url: string; apiKey: string | undefined; body: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method === "POST" || req.method === "PATCH") {
        posts.push({ url: req.url ?? "", apiKey: req.headers["x-api-key"] as string | undefined, body: Buffer.concat(chunks).toString("utf8") });
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  return { server, posts };
}

describe("LangSmith tracing of the service", () => {
  const smith = fakeLangSmith();
  let endpoint = "";
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-trace-"));
  beforeAll(async () => {
    await new Promise<void>((resolve) => smith.server.listen(0, "127.0.0.1", resolve));
    endpoint = `http://127.0.0.1:${(smith.server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => smith.server.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function oneTurn(env: Record<string, string>, sessionId: string): Promise<void> {
    smith.posts.splice(0);
    const port = await freePort();
    const service = startService({ PORT: String(port), SQLITE_PATH: path.join(dir, `${sessionId}.db`), LANGSMITH_ENDPOINT: endpoint, ...env });
    try {
      await waitFor(() => service.output().includes("server.listening"), 20_000);
      const res = await fetch(`http://127.0.0.1:${port}/v1/turns`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ user_id: "u1", session_id: sessionId, message: "Where is my parcel to Chiang Mai?" }),
      });
      expect(res.status).toBe(200);
      // Traces still queued are sent before the process exits.
      service.child.kill("SIGTERM");
      expect(await service.exited).toBe(0);
    } finally {
      if (service.child.exitCode === null) service.child.kill("SIGKILL");
    }
  }

  it("sends nothing while LANGSMITH_TRACING is unset", async () => {
    await oneTurn({ LANGSMITH_TRACING: "", LANGCHAIN_TRACING_V2: "", LANGSMITH_API_KEY: "lsv2-test-key" }, "untraced");
    expect(smith.posts).toEqual([]);
  }, 60_000);

  it("traces the graph run and each node to the configured project when LANGSMITH_TRACING=true", async () => {
    await oneTurn({ LANGSMITH_TRACING: "true", LANGSMITH_API_KEY: "lsv2-test-key", LANGSMITH_PROJECT: "memory-graph-test" }, "traced");
    const sent = smith.posts.map((post) => post.body).join("\n");
    expect(smith.posts.length).toBeGreaterThan(0);
    expect(smith.posts.every((post) => post.apiKey === "lsv2-test-key")).toBe(true);
    for (const name of ["memory_graph", "ingest_prompt", "recall", "classify_event", "call_model", "build_candidate"]) {
      expect(sent).toContain(`"name":"${name}"`);
    }
    expect(sent).toContain("memory-graph-test");
    expect(sent).toContain("Where is my parcel to Chiang Mai?");
  }, 60_000);

  it("keeps message text out of the traces with LANGSMITH_HIDE_INPUTS and LANGSMITH_HIDE_OUTPUTS", async () => {
    await oneTurn({ LANGSMITH_TRACING: "true", LANGSMITH_API_KEY: "lsv2-test-key", LANGSMITH_HIDE_INPUTS: "true", LANGSMITH_HIDE_OUTPUTS: "true" }, "hidden");
    const sent = smith.posts.map((post) => post.body).join("\n");
    expect(sent).toContain('"name":"memory_graph"');
    expect(sent).not.toContain("Chiang Mai");
  }, 60_000);
});
