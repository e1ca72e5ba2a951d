import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { RunnableConfig } from "@langchain/core/runnables";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import {
  uuid6,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointMetadata,
} from "@langchain/langgraph-checkpoint";
import {
  deltaChannelHistoryTests,
  validate,
  type CheckpointSaverTestInitializer,
} from "@langchain/langgraph-checkpoint-validation";
import { SqliteCheckpointer } from "../../../src/storage/sqlite/checkpointer.js";
import { countListed, METADATA_FILTER_CASES } from "../checkpointer-cases.js";

const dir = mkdtempSync(join(tmpdir(), "sqlite-checkpointer-"));
let fileNo = 0;
const freshPath = () => join(dir, `checkpoints-${(fileNo += 1)}.db`);
const paths = new Map<SqliteCheckpointer, string>();

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const initializer: CheckpointSaverTestInitializer<SqliteCheckpointer> = {
  checkpointerName: "SqliteCheckpointer",
  createCheckpointer() {
    const path = freshPath();
    const saver = SqliteCheckpointer.fromPath(path);
    paths.set(saver, path);
    return saver;
  },
  destroyCheckpointer(saver) {
    saver.close();
    const path = paths.get(saver);
    if (path !== undefined) rmSync(path, { force: true });
  },
};

validate(initializer);
// Opt-in part of the suite (not run by validate): the walk that rebuilds DeltaChannel state.
deltaChannelHistoryTests(initializer);

const meta = (step: number): CheckpointMetadata => ({ source: "loop", step, parents: {} });

/** Puts `n` checkpoints in a chain: `big` written once at the start, `counter` changed every time. */
async function putChain(saver: SqliteCheckpointer, threadId: string, n: number, big: string) {
  let config: RunnableConfig = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
  const ids: string[] = [];
  for (let i = 1; i <= n; i += 1) {
    const checkpoint: Checkpoint = {
      v: 4,
      id: uuid6(i),
      ts: new Date().toISOString(),
      channel_values: { big, counter: i },
      channel_versions: { big: 1, counter: i },
      versions_seen: {},
    };
    const newVersions: ChannelVersions = i === 1 ? { big: 1, counter: 1 } : { counter: i };
    config = await saver.put(config, checkpoint, meta(i), newVersions);
    await saver.putWrites(config, [["counter", i + 1]], `task-${i}`);
    ids.push(checkpoint.id);
  }
  return ids;
}

describe("SqliteCheckpointer storage", () => {
  let db: Database.Database;
  let saver: SqliteCheckpointer;

  beforeEach(() => {
    db = new Database(freshPath());
    saver = new SqliteCheckpointer(db);
  });
  afterEach(() => {
    saver.close();
    db.close();
  });

  const count = (sql: string, ...args: unknown[]) =>
    (db.prepare(sql).get(...args) as { n: number }).n;

  it("stores a channel that never changes once, however many checkpoints name it", async () => {
    const big = "x".repeat(100_000);
    const ids = await putChain(saver, "t1", 50, big);
    expect(count("SELECT count(*) AS n FROM checkpoint_checkpoints")).toBe(50);
    expect(count("SELECT count(*) AS n FROM checkpoint_blobs WHERE channel = 'big'")).toBe(1);
    expect(count("SELECT count(*) AS n FROM checkpoint_blobs WHERE channel = 'counter'")).toBe(50);
    const latest = await saver.getTuple({ configurable: { thread_id: "t1" } });
    expect(latest?.checkpoint.channel_values.counter).toBe(50);
    expect(latest?.checkpoint.channel_values.big === big).toBe(true);
    const first = await saver.getTuple({ configurable: { thread_id: "t1", checkpoint_ns: "", checkpoint_id: ids[0] } });
    expect(first?.checkpoint.channel_values.counter).toBe(1);
    expect(first?.checkpoint.channel_values.big === big).toBe(true);
  });

  it("pruneThread keeps the newest N, their values and writes, and drops the rest", async () => {
    const big = "y".repeat(1000);
    const written = await putChain(saver, "t1", 20, big);
    await putChain(saver, "other", 3, big);
    expect(await saver.pruneThread("t1", 5)).toBe(15);
    const listed = [];
    for await (const tuple of saver.list({ configurable: { thread_id: "t1" } })) listed.push(tuple.checkpoint.id);
    expect(listed).toEqual(written.slice(15).reverse());
    const latest = await saver.getTuple({ configurable: { thread_id: "t1" } });
    expect(latest?.checkpoint.channel_values).toEqual({ big, counter: 20 });
    expect(latest?.pendingWrites).toEqual([["task-20", "counter", 21]]);
    expect(count("SELECT count(*) AS n FROM checkpoint_blobs WHERE thread_id = 't1' AND channel = 'counter'")).toBe(5);
    expect(count("SELECT count(*) AS n FROM checkpoint_blobs WHERE thread_id = 't1' AND channel = 'big'")).toBe(1);
    expect(count("SELECT count(*) AS n FROM checkpoint_writes WHERE thread_id = 't1'")).toBe(5);
    expect(count("SELECT count(*) AS n FROM checkpoint_checkpoints WHERE thread_id = 'other'")).toBe(3);
  });

  it("pruneThread with slack leaves keep + slack alone and prunes beyond it back to keep", async () => {
    await putChain(saver, "t1", 8, "s");
    expect(await saver.pruneThread("t1", 5, 3)).toBe(0);
    expect(count("SELECT count(*) AS n FROM checkpoint_checkpoints WHERE thread_id = 't1'")).toBe(8);
    expect(count("SELECT count(*) AS n FROM checkpoint_blobs WHERE thread_id = 't1' AND channel = 'counter'")).toBe(8);
    expect(await saver.pruneThread("t1", 5, 2)).toBe(3);
    expect(count("SELECT count(*) AS n FROM checkpoint_blobs WHERE thread_id = 't1' AND channel = 'counter'")).toBe(5);
  });

  it("pruneThread never removes the newest checkpoint", async () => {
    await putChain(saver, "t1", 4, "z");
    expect(await saver.pruneThread("t1", 0)).toBe(3);
    expect(await saver.pruneThread("t1", 0)).toBe(0);
    const latest = await saver.getTuple({ configurable: { thread_id: "t1" } });
    expect(latest?.checkpoint.channel_values).toEqual({ big: "z", counter: 4 });
  });

  it("shares the file: creates only checkpoint_* tables and leaves others alone", async () => {
    db.exec("CREATE TABLE store_items (k TEXT PRIMARY KEY)");
    saver.setup();
    saver.setup();
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).toEqual(["checkpoint_blobs", "checkpoint_checkpoints", "checkpoint_writes", "store_items"]);
    saver.close();
    expect(db.open).toBe(true);
  });

  it("runs a real LangGraph graph across turns and a fork", async () => {
    const State = Annotation.Root({
      log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
      turns: Annotation<number>({ reducer: (_a, b) => b, default: () => 0 }),
    });
    const graph = new StateGraph(State)
      .addNode("step", (s: typeof State.State) => ({ log: [`turn ${s.turns + 1}`], turns: s.turns + 1 }))
      .addEdge(START, "step")
      .addEdge("step", END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "graph" } };
    for (let i = 0; i < 3; i += 1) await graph.invoke({}, config);
    const state = await graph.getState(config);
    expect(state.values).toEqual({ log: ["turn 1", "turn 2", "turn 3"], turns: 3 });

    const history = [];
    for await (const snapshot of graph.getStateHistory(config)) history.push(snapshot);
    const afterFirstTurn = history.find((h) => h.values.turns === 1 && h.next.length === 0);
    expect(afterFirstTurn).toBeDefined();
    const forked = await graph.invoke({}, afterFirstTurn!.config);
    expect(forked).toEqual({ log: ["turn 1", "turn 2"], turns: 2 });
    expect((await graph.getState(config)).values.log).toEqual(["turn 1", "turn 2"]);
  });

  it.each(METADATA_FILTER_CASES)("list filters on metadata %j", async (filter, expected) => {
    expect(await countListed(saver, filter)).toBe(expected);
  });
});
