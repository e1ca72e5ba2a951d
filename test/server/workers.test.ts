import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { freePort, startService as start, waitFor } from "../support/service-process.js";

const count = (text: string, needle: string) => text.split(needle).length - 1;

describe("npm start with WEB_CONCURRENCY=2 (node:cluster workers on one SQLite file)", () => {
  it("keeps one session's concurrent turns serial across workers, then drains and exits 0", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-workers-"));
    const port = await freePort();
    const server = start({ PORT: String(port), SQLITE_PATH: path.join(dir, "m.db"), WEB_CONCURRENCY: "2", SHUTDOWN_GRACE_MS: "5000" });
    const base = `http://127.0.0.1:${port}`;
    try {
      await waitFor(() => server.output().includes("server.workers"), 30_000);
      expect(count(server.output(), "server.listening")).toBe(2);
      // Separate connections, so the primary hands the requests to both workers.
      const turns = 12;
      const answers = await Promise.all(
        Array.from({ length: turns }, async (_, i) => {
          const res = await fetch(`${base}/v1/turns`, {
            method: "POST",
            headers: { "content-type": "application/json", connection: "close" },
            body: JSON.stringify({ user_id: "u1", session_id: "s1", message: `Question ${i}: what does plan ${i} cost?` }),
          });
          expect(res.status).toBe(200);
          return (await res.json()) as { status: string; message_ids: { user: string; assistant: string | null } };
        }),
      );
      expect(answers.every((a) => a.status === "OK")).toBe(true);
      const res = await fetch(`${base}/v1/sessions/s1/messages?user_id=u1`);
      const thread = ((await res.json()) as { messages: { id: string; role: string; parent_id: string | null }[] }).messages;
      // Two turns run at once would both continue from the same parent and one would drop out of the thread.
      expect(thread).toHaveLength(2 * turns);
      expect(new Set(thread.map((m) => m.id))).toEqual(new Set(answers.flatMap((a) => [a.message_ids.user, a.message_ids.assistant])));
      thread.forEach((message, i) => {
        expect(message.role).toBe(i % 2 === 0 ? "user" : "assistant");
        expect(message.parent_id).toBe(i === 0 ? null : thread[i - 1]?.id);
      });
      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
      expect(count(server.output(), "server.stopped")).toBe(3);
    } finally {
      if (server.child.exitCode === null) server.child.kill("SIGKILL");
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);

  it("refuses more than one worker on the memory backend", async () => {
    const server = start({ PORT: String(await freePort()), MEMORY_BACKEND: "memory", WEB_CONCURRENCY: "2" });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain("WEB_CONCURRENCY > 1 needs storage the workers share");
  }, 30_000);
});
