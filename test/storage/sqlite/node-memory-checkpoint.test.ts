import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { createMemoryGraph } from "../../../src/app/create-memory-graph.js";
import { setLogLevel } from "../../../src/logger.js";
import { textOf } from "../../../src/messages/message-meta.js";
import { SHARED_JSON_TYPE } from "../../../src/storage/shared/checkpoint-serde.js";

/**
 * Node memory holds the window's user messages once per LLM node; the checkpoint writes each of
 * them once, and the session reads back as it was.
 */
setLogLevel("silent");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-node-memory-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const scope = { tenantId: "t1", userId: "u1", sessionId: "s1" };
const said = ["My locker code is 4711.", "I live in Chiang Mai.", "What is my locker code?", "Where do I live?"];
const human = <M extends { getType(): string }>(messages: M[] | undefined): M[] => (messages ?? []).filter((m) => m.getType() === "human");

describe("node memory in a SQLite checkpoint", () => {
  it("writes each user message once for every node, and reads back the same messages, one instance for all nodes", async () => {
    const file = path.join(dir, "memory.db");
    const memory = await createMemoryGraph({ backend: "sqlite", sqlitePath: file, memoryMode: "node", chatModel: null, classifierModel: null, summaryModel: null });
    try {
      for (const message of said) await memory.runTurn({ ...scope, message });
      await memory.settled();
      const state = await memory.sessionState(scope);
      const ofNode = (node: string) => human(state?.nodeMessages[node]);
      expect(human(state?.messages).map((m) => textOf(m as never))).toEqual(said);
      expect(ofNode("call_model").map((m) => textOf(m as never))).toEqual(said);
      expect(ofNode("classify_event").map((m) => m.id)).toEqual(ofNode("call_model").map((m) => m.id));
      // Loaded from the checkpoint: the turns before the last were written once for both nodes.
      expect(ofNode("classify_event")[0]).toBe(ofNode("call_model")[0]);
      expect(ofNode("classify_event")[0]).toEqual(human(state?.messages)[0]);
    } finally {
      await memory.close();
    }
    const db = new Database(file, { readonly: true });
    const blob = db.prepare("SELECT type, value FROM checkpoint_blobs WHERE channel = 'nodeMessages' ORDER BY rowid DESC LIMIT 1").get() as { type: string; value: Buffer };
    db.close();
    expect(blob.type).toBe(SHARED_JSON_TYPE);
    for (const text of said) expect(blob.value.toString().split(text)).toHaveLength(2);
  });
});
