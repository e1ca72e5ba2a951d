import { randomUUID } from "node:crypto";
import { createClient, type RedisClientType } from "redis";
import type { RunnableConfig } from "@langchain/core/runnables";
import { Annotation, END, START, StateGraph } from "@langchain/langgraph";
import { uuid6, type ChannelVersions, type Checkpoint } from "@langchain/langgraph-checkpoint";
import {
  deltaChannelHistoryTests,
  validate,
  type CheckpointSaverTestInitializer,
} from "@langchain/langgraph-checkpoint-validation";
import { RedisCheckpointer } from "../../../src/storage/redis/checkpointer.js";
import { countListed, METADATA_FILTER_CASES } from "../checkpointer-cases.js";

const REDIS_URL = "redis://127.0.0.1:6379";
const runPrefix = `mg-test:checkpoint:${randomUUID()}`;
let client: RedisClientType;
let saverNo = 0;

async function deleteUnder(prefix: string): Promise<void> {
  for await (const batch of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 500 })) {
    if (batch.length > 0) await client.del(batch);
  }
}

beforeAll(async () => {
  client = createClient({ url: REDIS_URL });
  await client.connect();
});

afterAll(async () => {
  await deleteUnder(runPrefix);
  await client.close();
});

const initializer: CheckpointSaverTestInitializer<RedisCheckpointer> = {
  checkpointerName: "RedisCheckpointer",
  createCheckpointer() {
    return new RedisCheckpointer(client, { keyPrefix: `${runPrefix}:${(saverNo += 1)}`, ttlSeconds: 600 });
  },
  async destroyCheckpointer(saver) {
    await deleteUnder(saver.keyPrefix);
  },
};

validate(initializer);
// Opt-in part of the suite (not run by validate): the walk that rebuilds DeltaChannel state.
deltaChannelHistoryTests(initializer);

async function putChain(saver: RedisCheckpointer, threadId: string, n: number, big: string): Promise<RunnableConfig> {
  let config: RunnableConfig = { configurable: { thread_id: threadId, checkpoint_ns: "" } };
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
    config = await saver.put(config, checkpoint, { source: "loop", step: i, parents: {} }, newVersions);
  }
  return config;
}

describe("RedisCheckpointer on plain Redis", () => {
  let saver: RedisCheckpointer;

  beforeEach(() => {
    saver = new RedisCheckpointer(client, { keyPrefix: `${runPrefix}:own-${(saverNo += 1)}`, ttlSeconds: 120 });
  });
  afterEach(async () => {
    await deleteUnder(saver.keyPrefix);
  });

  const threadKeys = async () => {
    const keys: string[] = [];
    for await (const batch of client.scanIterator({ MATCH: `${saver.keyPrefix}:*` })) keys.push(...batch);
    return keys.sort();
  };

  it("gives every key of a thread a TTL after a put", async () => {
    const config = await putChain(saver, "t1", 2, "b");
    await saver.putWrites(config, [["counter", 3]], "task");
    const keys = await threadKeys();
    expect(keys).toHaveLength(5);
    for (const key of keys) {
      const ttl = await client.ttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(120);
    }
  });

  it("refreshes the TTL of all the thread's keys on every write", async () => {
    const config = await putChain(saver, "t1", 1, "b");
    const keys = await threadKeys();
    for (const key of keys) await client.expire(key, 5);
    await saver.putWrites(config, [["counter", 2]], "task");
    for (const key of await threadKeys()) expect(await client.ttl(key)).toBeGreaterThan(100);
    for (const key of keys) await client.expire(key, 5);
    await putChain(saver, "t1", 1, "b");
    for (const key of keys) expect(await client.ttl(key)).toBeGreaterThan(100);
  });

  it("keeps no TTL when ttlSeconds is not set", async () => {
    saver = new RedisCheckpointer(client, { keyPrefix: `${runPrefix}:own-${(saverNo += 1)}` });
    await putChain(saver, "t1", 1, "b");
    for (const key of await threadKeys()) expect(await client.ttl(key)).toBe(-1);
  });

  it("stores a channel that never changes once, however many checkpoints name it", async () => {
    const big = "x".repeat(50_000);
    await putChain(saver, "t1", 30, big);
    const blobKey = (await threadKeys()).find((k) => k.endsWith(":blobs"));
    expect(await client.hLen(blobKey!)).toBe(31);
    const latest = await saver.getTuple({ configurable: { thread_id: "t1" } });
    expect(latest?.checkpoint.channel_values.counter).toBe(30);
    expect(latest?.checkpoint.channel_values.big === big).toBe(true);
  });

  it("deleteThread removes every key of the thread", async () => {
    await putChain(saver, "t1", 2, "b");
    await putChain(saver, "t2", 1, "b");
    await saver.deleteThread("t1");
    const keys = await threadKeys();
    expect(keys.every((k) => k.includes("{t2}"))).toBe(true);
    expect(await saver.getTuple({ configurable: { thread_id: "t1" } })).toBeUndefined();
  });

  it("fromUrl connects its own client and close() releases it", async () => {
    const own = await RedisCheckpointer.fromUrl(REDIS_URL, { keyPrefix: saver.keyPrefix, ttlSeconds: 60 });
    await putChain(own, "t1", 1, "b");
    expect((await own.getTuple({ configurable: { thread_id: "t1" } }))?.checkpoint.channel_values).toEqual({
      big: "b",
      counter: 1,
    });
    await own.close();
    expect(own.client.isOpen).toBe(false);
    expect(client.isOpen).toBe(true);
  });

  it("runs a real LangGraph graph across turns", async () => {
    const State = Annotation.Root({
      log: Annotation<string[]>({ reducer: (a, b) => a.concat(b), default: () => [] }),
    });
    const graph = new StateGraph(State)
      .addNode("step", (s: typeof State.State) => ({ log: [`turn ${s.log.length + 1}`] }))
      .addEdge(START, "step")
      .addEdge("step", END)
      .compile({ checkpointer: saver });
    const config = { configurable: { thread_id: "graph" } };
    for (let i = 0; i < 3; i += 1) await graph.invoke({}, config);
    expect((await graph.getState(config)).values).toEqual({ log: ["turn 1", "turn 2", "turn 3"] });
  });

  it.each(METADATA_FILTER_CASES)("list filters on metadata %j", async (filter, expected) => {
    expect(await countListed(saver, filter)).toBe(expected);
  });
});
