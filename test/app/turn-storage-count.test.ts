import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createMemoryGraph, type MemoryGraph } from "../../src/app/create-memory-graph.js";
import { HashedNgramEmbeddings } from "../../src/memory/ranking/hash-embedder.js";
import { SqliteStore } from "../../src/storage/sqlite/store.js";
import { RecordingChatModel } from "../support/models.js";

const hooks = vi.hoisted(() => ({ onWrite: () => {} }));

// Every write transaction on SQLite (a store batch that writes, a checkpoint, a lock's claim or
// release) goes through `writeWhenFree`, once per transaction: counting its calls counts them.
vi.mock("../../src/storage/sqlite/write-when-free.js", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../src/storage/sqlite/write-when-free.js")>();
  return {
    ...actual,
    writeWhenFree: (...args: Parameters<typeof actual.writeWhenFree>) => {
      hooks.onWrite();
      return actual.writeWhenFree(...args);
    },
  };
});

/** What a turn did to storage, by the graph node it ran in ("runner": the turn runner, its locks and checkpoint). */
type Counts = Record<string, { batches: number; writes: number }>;

/** The node a storage call runs in: LangGraph keeps each node's config in async local storage. */
function nodeNow(): string {
  const config = AsyncLocalStorageProviderSingleton.getRunnableConfig() as { metadata?: { langgraph_node?: string } } | undefined;
  return config?.metadata?.langgraph_node ?? "runner";
}

let counts: Counts = {};
const tally = (kind: "batches" | "writes") => ((counts[nodeNow()] ??= { batches: 0, writes: 0 })[kind] += 1);

/**
 * What one turn (and its upkeep) on the SQLite default does to storage, with a model and embeddings
 * configured (the user's message is then written by call_model, while the model answers): store
 * batches (`BaseStore.batch` calls) and write transactions, by node. The figures are pinned so that
 * a new read or write per turn is a decision, not an accident (bench/turn-storage.ts prints them for
 * the service's setup). The classification is the rules' here: what it stores does not depend on
 * who classified.
 */
describe("storage per turn on SQLite", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-turn-storage-"));
  const scope = { tenantId: "acme", userId: "u1", sessionId: "s1" };
  let graph: MemoryGraph;

  beforeAll(async () => {
    const batch = SqliteStore.prototype.batch;
    vi.spyOn(SqliteStore.prototype, "batch").mockImplementation(function (this: SqliteStore, operations) {
      tally("batches");
      return batch.call(this, operations);
    });
    hooks.onWrite = () => tally("writes");
    graph = await createMemoryGraph({
      backend: "sqlite",
      sqlitePath: path.join(dir, "m.db"),
      chatModel: new RecordingChatModel(["Noted, I will look into it."]),
      classify: "rules",
      embeddings: new HashedNgramEmbeddings(),
      limits: { summaryInterval: 100 },
      logger: false,
    });
    // Two turns before: the session's checkpoint, transcript and continuity mark exist.
    for (const message of ["Hello there", "What can you do for me?"]) await turn(message);
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    await graph.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function turn(message: string): Promise<Counts> {
    counts = {};
    await graph.runTurn({ ...scope, message });
    await graph.settled();
    return counts;
  }

  it.each([
    {
      what: "an acknowledgement (no event kept, no fact)",
      message: "ok thanks",
      expected: {
        // the user's lock, the session's lock: taken and released; the checkpoint
        runner: { batches: 0, writes: 5 },
        // the continuity mark
        ingest_prompt: { batches: 1, writes: 0 },
        // recent turns, summaries, facts, events, similar messages
        recall: { batches: 5, writes: 0 },
        // the user's message (it names nothing: no entity node read); the reply with its context record and mark;
        // the reply's vector, written after the answer (`saveAnswer`)
        call_model: { batches: 2, writes: 3 },
      },
    },
    {
      what: "a message with an event and facts to keep",
      message: "My sister Priya moved to Pune last month and my order 4503 arrived damaged",
      expected: {
        runner: { batches: 0, writes: 5 },
        ingest_prompt: { batches: 1, writes: 0 },
        recall: { batches: 5, writes: 0 },
        // the entity nodes the message names read, then the message with them written; the reply; its vector
        call_model: { batches: 3, writes: 3 },
        // the user's facts read, then the event and the facts written in one batch
        classify_event: { batches: 2, writes: 1 },
      },
    },
  ])("$what", async ({ message, expected }) => {
    expect(await turn(message)).toEqual(expected);
  });
});
