import type { RedisClientType } from "redis";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { Checkpoint, CheckpointTuple, SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../../errors.js";
import { log } from "../../logger.js";
import { addressOf, metadataMatches, versionKey } from "../shared/checkpoint-common.js";
import { StoredCheckpointer, type ListQuery, type SerializedCheckpoint, type SerializedWrites } from "../shared/checkpointer-base.js";
import {
  allKeys,
  blobField,
  checkpointField,
  fromBase64,
  splitCheckpointField,
  threadKeys,
  toBase64,
  writeField,
  type BlobRecord,
  type CheckpointRecord,
  type ThreadKeys,
  type WriteRecord,
  writesRange,
} from "./checkpointer-keys.js";
import { candidates, loadTuple, newestId } from "./checkpointer-read.js";
import { connectRedis } from "./connect.js";

/** Options of `RedisCheckpointer`. */
export interface RedisCheckpointerOptions {
  /** Prefix of every key (default `memory-graph:checkpoint`). */
  keyPrefix?: string;
  /** When set, every key of a thread expires this many seconds after the thread's last write. */
  ttlSeconds?: number;
  /** Default: `CompactSerializer` (reads JsonPlus data too). */
  serde?: SerializerProtocol;
}

/**
 * A LangGraph checkpointer on plain Redis (strings, hashes, sorted sets; no modules, no Lua),
 * so it runs on managed Redis. Session memory expires by itself: with `ttlSeconds`, each write
 * to a thread (put or putWrites) refreshes EXPIRE on all five keys of that thread in the same
 * MULTI. Channel values are stored once per (namespace, channel, version), like the SQLite
 * checkpointer. `close()` closes the client only when this checkpointer opened it (`fromUrl`).
 */
export class RedisCheckpointer extends StoredCheckpointer {
  readonly client: RedisClientType;
  readonly keyPrefix: string;
  readonly ttlSeconds: number | undefined;
  private readonly ownsClient: boolean;

  constructor(client: RedisClientType, options: RedisCheckpointerOptions & { ownsClient?: boolean } = {}) {
    super(options.serde);
    const ttl = options.ttlSeconds;
    if (ttl !== undefined && (!Number.isInteger(ttl) || ttl <= 0)) {
      throw new MemoryGraphError("CONFIG_INVALID", "ttlSeconds: must be a positive integer", { kind: "system", field: "ttlSeconds" });
    }
    this.client = client;
    this.keyPrefix = options.keyPrefix ?? "memory-graph:checkpoint";
    this.ttlSeconds = ttl;
    this.ownsClient = options.ownsClient ?? false;
  }

  /**
   * Connects a new client to `url` (see `connectRedis`: the first connection fails with
   * REDIS_UNAVAILABLE after `connectTimeoutMs`, default 5000); the checkpointer owns the client
   * and closes it in `close()`.
   */
  static async fromUrl(url: string, options: RedisCheckpointerOptions & { connectTimeoutMs?: number } = {}): Promise<RedisCheckpointer> {
    const client = await connectRedis(url, { timeoutMs: options.connectTimeoutMs, errorEvent: "redis_checkpointer_error" });
    return new RedisCheckpointer(client, { ...options, ownsClient: true });
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const { threadId, ns, checkpointId } = addressOf(config);
    if (threadId === undefined) return undefined;
    const id = checkpointId ?? (await newestId(this, threadId, ns));
    return id === undefined ? undefined : loadTuple(this, { threadId, ns, id });
  }

  protected async *listStored(query: ListQuery): AsyncGenerator<CheckpointTuple> {
    const { filter } = query;
    let remaining = query.limit ?? Infinity;
    const want = filter.length === 0 ? remaining : Infinity;
    for await (const at of candidates(this, query.threadId, query.ns, query.before, want)) {
      if (remaining <= 0) return;
      const tuple = await loadTuple(this, at);
      if (tuple === undefined || !metadataMatches(tuple.metadata, filter)) continue;
      remaining -= 1;
      yield tuple;
    }
  }

  protected async storeCheckpoint(c: SerializedCheckpoint): Promise<void> {
    const keys = this.keys(c.threadId);
    const [checkpointType, checkpointBytes] = c.checkpoint;
    const [metadataType, metadataBytes] = c.metadata;
    const record: CheckpointRecord = {
      parent: c.parentId ?? null,
      checkpointType,
      checkpoint: toBase64(checkpointBytes),
      metadataType,
      metadata: toBase64(metadataBytes),
    };
    const blobs: Record<string, string> = {};
    for (const blob of c.blobs) {
      const stored: BlobRecord = [blob.type, blob.bytes === null ? null : toBase64(blob.bytes)];
      blobs[blobField(c.ns, blob.channel, blob.version)] = JSON.stringify(stored);
    }
    const member = checkpointField(c.ns, c.id);
    const multi = this.client.multi();
    if (Object.keys(blobs).length > 0) multi.hSet(keys.blobs, blobs);
    multi.hSet(keys.cp, member, JSON.stringify(record));
    multi.zAdd(keys.idx, { score: 0, value: member });
    this.expireAll(multi, keys);
    await multi.exec();
  }

  protected async storeWrites(w: SerializedWrites): Promise<void> {
    const keys = this.keys(w.threadId);
    const multi = this.client.multi();
    for (const write of w.writes) {
      const record: WriteRecord = { taskId: w.taskId, taskPath: w.taskPath, idx: write.idx, channel: write.channel, type: write.type, value: toBase64(write.bytes) };
      const field = writeField(w.ns, w.checkpointId, w.taskId, write.idx);
      // Ordinary writes keep the first value stored (a retried task must not change history).
      if (w.replace) multi.hSet(keys.w, field, JSON.stringify(record));
      else multi.hSetNX(keys.w, field, JSON.stringify(record));
      multi.zAdd(keys.wi, { score: 0, value: field });
    }
    this.expireAll(multi, keys);
    await multi.exec();
  }

  /** With a TTL, every key of the thread expires `ttlSeconds` after this write. */
  private expireAll(multi: { expire(key: string, seconds: number): unknown }, keys: ThreadKeys): void {
    const ttl = this.ttlSeconds;
    if (ttl !== undefined) for (const key of allKeys(keys)) multi.expire(key, ttl);
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.client.del(allKeys(this.keys(threadId)));
  }

  /**
   * Keeps the newest `keep` checkpoints of each namespace of `threadId` (at least one), deleting
   * the others with their pending writes and the channel values no kept checkpoint names. Sessions
   * here expire by their TTL and are not collected; this runs after a correction of the session,
   * whose older checkpoints still hold what it took out. Plain commands, no Lua: the caller holds
   * the thread's turn lock, so nothing writes the thread meanwhile. Returns how many went.
   */
  async pruneThread(threadId: string, keep: number): Promise<number> {
    const kept = Math.max(1, Math.floor(Number.isFinite(keep) ? keep : 1));
    const keys = this.keys(threadId);
    // Members sort by namespace, then checkpoint id: each namespace's newest come last.
    const byNamespace = new Map<string, string[]>();
    for (const member of await this.client.zRange(keys.idx, 0, -1)) {
      const { ns } = splitCheckpointField(member);
      byNamespace.set(ns, [...(byNamespace.get(ns) ?? []), member]);
    }
    const doomed = [...byNamespace.values()].flatMap((members) => members.slice(0, Math.max(0, members.length - kept)));
    if (doomed.length === 0) return 0;
    const keptMembers = [...byNamespace.values()].flatMap((members) => members.slice(-kept));
    const named = new Set<string>();
    const records = keptMembers.length > 0 ? await this.client.hmGet(keys.cp, keptMembers) : [];
    for (const [i, raw] of records.entries()) {
      if (raw === null || raw === undefined) continue;
      const record = JSON.parse(raw) as CheckpointRecord;
      const checkpoint = (await this.serde.loadsTyped(record.checkpointType, fromBase64(record.checkpoint))) as Checkpoint;
      const { ns } = splitCheckpointField(keptMembers[i] ?? "");
      for (const [channel, version] of Object.entries(checkpoint.channel_versions)) named.add(blobField(ns, channel, versionKey(version)));
    }
    const writes = (
      await Promise.all(doomed.map((member) => {
        const { ns, id } = splitCheckpointField(member);
        const [low, high] = writesRange(ns, id);
        return this.client.zRange(keys.wi, low, high, { BY: "LEX" });
      }))
    ).flat();
    const unnamed = (await this.client.hKeys(keys.blobs)).filter((field) => !named.has(field));
    const multi = this.client.multi();
    multi.hDel(keys.cp, doomed);
    multi.zRem(keys.idx, doomed);
    if (writes.length > 0) multi.hDel(keys.w, writes).zRem(keys.wi, writes);
    if (unnamed.length > 0) multi.hDel(keys.blobs, unnamed);
    await multi.exec();
    log.debug("checkpoint_pruned", { threadId, removed: doomed.length, kept });
    return doomed.length;
  }

  /** Closes the client when this checkpointer opened it; otherwise leaves it to its owner. */
  async close(): Promise<void> {
    if (this.ownsClient && this.client.isOpen) await this.client.close();
  }

  private keys(threadId: string): ThreadKeys {
    return threadKeys(this.keyPrefix, threadId);
  }
}
