import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { startProvider } from "../support/openai-provider.js";
import { freePort, startService, waitFor } from "../support/service-process.js";
import { parseSse } from "./helpers.js";

describe("SIGTERM with a grace shorter than a streaming turn", () => {
  it("ends the open stream with an error event saying the same message_id may be retried", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-shutdown-"));
    const provider = await startProvider();
    // The reply never comes: the turn outlives the grace.
    provider.hold = (body) => body.stream === true;
    const port = await freePort();
    const server = startService({
      PORT: String(port),
      SQLITE_PATH: path.join(dir, "m.db"),
      SHUTDOWN_GRACE_MS: "1000",
      OPENAI_API_KEY: "test-key",
      OPENAI_BASE_URL: provider.baseUrl,
    });
    try {
      await waitFor(() => server.output().includes("server.listening"), 20_000);
      const res = await fetch(`http://127.0.0.1:${port}/v1/turns/stream`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ user_id: "u1", session_id: "s1", message: "tell me a long story", message_id: "m1" }),
      });
      expect(res.status).toBe(200);
      await waitFor(() => provider.requests.some((request) => request.body.stream === true), 20_000);
      server.child.kill("SIGTERM");
      const events = parseSse(await res.text());
      expect(events.at(-1)).toMatchObject({ event: "error", data: { error: { code: "DRAINING" } } });
      expect(JSON.stringify(events.at(-1)?.data)).toContain("same message_id");
      expect(await server.exited).toBe(1);
    } finally {
      if (server.child.exitCode === null) server.child.kill("SIGKILL");
      await provider.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
