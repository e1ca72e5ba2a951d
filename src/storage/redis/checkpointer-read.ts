import type { RedisClientType } from "redis";
import { TASKS, type CheckpointTuple, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import type { StoredWrite } from "../shared/checkpoint-common.js";
import { assembleTuple } from "../shared/tuple-assembly.js";
import {
  blobField,
  checkpointField,
  fromBase64,
  indexPattern,
  namespaceRange,
  splitCheckpointField,
  threadKeys,
  threadOfIndexKey,
  writesRange,
  type BlobRecord,
  type CheckpointRecord,
  type ThreadKeys,
  type WriteRecord,
} from "./checkpointer-keys.js";

/** What the read side of `RedisCheckpointer` needs: the client, the key prefix and the serde. */
export interface RedisReadContext {
  client: RedisClientType;
  keyPrefix: string;
  serde: SerializerProtocol;
}

/** One checkpoint's address. */
export interface Located {
  threadId: string;
  ns: string;
  id: string;
}

const PAGE = 100;

/** The id of the newest checkpoint of a thread's namespace, if any. */
export async function newestId(ctx: RedisReadContext, threadId: string, ns: string): Promise<string | undefined> {
  const [high, low] = namespaceRange(ns);
  const newest = await ctx.client.zRange(threadKeys(ctx.keyPrefix, threadId).idx, high, low, {
    BY: "LEX",
    REV: true,
    LIMIT: { offset: 0, count: 1 },
  });
  return newest[0] === undefined ? undefined : splitCheckpointField(newest[0]).id;
}

/**
 * Checkpoints `list` should consider, newest first (by checkpoint id). With a thread and a
 * namespace it pages through the sorted set lazily, `want` at a time (at most 100); otherwise it
 * reads the matching index keys whole (threads found by SCAN when no thread is given).
 */
export async function* candidates(
  ctx: RedisReadContext,
  threadId: string | undefined,
  ns: string | undefined,
  before: string | undefined,
  want: number,
): AsyncGenerator<Located> {
  if (threadId !== undefined && ns !== undefined) {
    const idx = threadKeys(ctx.keyPrefix, threadId).idx;
    let cursor = before;
    for (;;) {
      const [high, low] = namespaceRange(ns, cursor);
      const count = Math.min(want, PAGE);
      const page = await ctx.client.zRange(idx, high, low, { BY: "LEX", REV: true, LIMIT: { offset: 0, count } });
      for (const member of page) yield { threadId, ...splitCheckpointField(member) };
      const last = page.at(-1);
      if (page.length < count || last === undefined) return;
      cursor = splitCheckpointField(last).id;
    }
  }
  const threads = threadId !== undefined ? [threadId] : await allThreads(ctx);
  const found: Located[] = [];
  for (const thread of threads) {
    for (const member of await ctx.client.zRange(threadKeys(ctx.keyPrefix, thread).idx, 0, -1)) {
      const at = { threadId: thread, ...splitCheckpointField(member) };
      if ((ns === undefined || at.ns === ns) && (before === undefined || at.id < before)) found.push(at);
    }
  }
  found.sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  yield* found;
}

async function allThreads(ctx: RedisReadContext): Promise<string[]> {
  const threads = new Set<string>();
  for await (const batch of ctx.client.scanIterator({ MATCH: indexPattern(ctx.keyPrefix), COUNT: 500 })) {
    for (const key of batch) {
      const thread = threadOfIndexKey(ctx.keyPrefix, key);
      if (thread !== undefined) threads.add(thread);
    }
  }
  return [...threads];
}

/** Reads one checkpoint with its channel values (rebuilt from its versions) and pending writes. */
export async function loadTuple(
  ctx: RedisReadContext,
  { threadId, ns, id }: Located,
): Promise<CheckpointTuple | undefined> {
  const keys = threadKeys(ctx.keyPrefix, threadId);
  const [raw, writes] = await Promise.all([
    ctx.client.hGet(keys.cp, checkpointField(ns, id)),
    loadWriteRecords(ctx, keys, ns, id),
  ]);
  if (raw === null || raw === undefined) return undefined;
  const record = JSON.parse(raw) as CheckpointRecord;
  const load = (type: string, value: string | null) => ctx.serde.loadsTyped(type, value === null ? "" : fromBase64(value));
  return assembleTuple(load, {
    threadId,
    ns,
    id,
    parentId: record.parent,
    checkpoint: { type: record.checkpointType, value: record.checkpoint },
    metadata: { type: record.metadataType, value: record.metadata },
    writes,
    readBlobs: async (versions) => {
      const blobs = await ctx.client.hmGet(keys.blobs, versions.map(({ channel, version }) => blobField(ns, channel, version)));
      return blobs.map((blob) => {
        if (blob === null || blob === undefined) return undefined;
        const [type, value] = JSON.parse(blob) as BlobRecord;
        return { type, value };
      });
    },
    readParentSends: async (parent) => (await loadWriteRecords(ctx, keys, ns, parent)).filter((w) => w.channel === TASKS),
  });
}

async function loadWriteRecords(
  ctx: RedisReadContext,
  keys: ThreadKeys,
  ns: string,
  id: string,
): Promise<StoredWrite<string>[]> {
  const [low, high] = writesRange(ns, id);
  const fields = await ctx.client.zRange(keys.wi, low, high, { BY: "LEX" });
  if (fields.length === 0) return [];
  const values = await ctx.client.hmGet(keys.w, fields);
  const writes: StoredWrite<string>[] = [];
  for (const value of values) {
    if (value !== null && value !== undefined) writes.push(JSON.parse(value) as WriteRecord);
  }
  return writes;
}
