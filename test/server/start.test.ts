import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { freePort, startService as start, waitFor } from "../support/service-process.js";

describe("npm start (src/cli/start.ts)", () => {
  it("serves a turn over HTTP on SQLite, then exits 0 on SIGTERM", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-start-"));
    const port = await freePort();
    const server = start({ PORT: String(port), SQLITE_PATH: path.join(dir, "m.db"), SHUTDOWN_GRACE_MS: "5000" });
    try {
      await waitFor(() => server.output().includes("server.listening"), 20_000);
      expect(server.output()).toContain("server.open_mode");
      // Recall's restore and ranking are compiled, and the language tools (the date parser among them) loaded and set up, after the service listens, while it is idle.
      await waitFor(() => server.output().includes("server.warmed"), 20_000);
      const events = server.logs();
      const warmed = events.findIndex((line) => line.event === "server.warmed");
      expect(warmed).toBeGreaterThan(events.findIndex((line) => line.event === "server.listening"));
      expect(typeof events[warmed]?.language_tools_ms).toBe("number");
      expect(events[warmed]?.recall_ms).toBeGreaterThan(0);
      // The store's reads of a user's index, made once for a user no request can name.
      expect(events[warmed]?.store_ms).toBeGreaterThanOrEqual(0);
      expect(events.some((line) => line.event === "server.warm_up_failed")).toBe(false);
      const res = await fetch(`http://127.0.0.1:${port}/v1/turns`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-request-id": "start-test-1" },
        body: JSON.stringify({ user_id: "u1", session_id: "s1", message: "My secret is pineapple" }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { status: string }).status).toBe("OK");
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
      const request = server.logs().find((l) => l.request_id === "start-test-1" && l.event === "http.request");
      expect(request).toMatchObject({ severity: "INFO", status: 200, route: "/v1/turns", tenant: "default" });
      expect(typeof request?.latency_ms).toBe("number");
      expect(server.output()).not.toContain("pineapple");
      expect(server.output()).toContain("server.stopped");
    } finally {
      if (server.child.exitCode === null) server.child.kill("SIGKILL");
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 40_000);

  it.each<Record<string, string>>([{ NODE_ENV: "production" }, { K_SERVICE: "memory-graph" }])("refuses to start without API_KEYS when %o", async (env) => {
    const server = start({ PORT: String(await freePort()), SQLITE_PATH: path.join(os.tmpdir(), "mg-unused.db"), ...env });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain("API_KEYS is required");
  }, 30_000);
});
