import type { RedisClientType } from "redis";
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../../errors.js";
import {
  EMPTY_BLOB_TYPE,
  addressOf,
  allSpecial,
  checkpointConfig,
  cleanFilter,
  metadataMatches,
  nextVersion,
  requireCheckpoint,
  requireThread,
  versionKey,
  withoutValues,
  writeIndex,
  type ChannelVersion,
} from "./checkpoint-common.js";
import {
  allKeys,
  blobField,
  checkpointField,
  threadKeys,
  toBase64,
  writeField,
  type BlobRecord,
  type CheckpointRecord,
  type ThreadKeys,
  type WriteRecord,
} from "./redis-checkpointer-keys.js";
import { CompactSerializer } from "./checkpoint-serde.js";
import { candidates, loadTuple, newestId } from "./redis-checkpointer-read.js";
import { connectRedis } from "./redis-connect.js";

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
export class RedisCheckpointer extends BaseCheckpointSaver {
  readonly client: RedisClientType;
  readonly keyPrefix: string;
  readonly ttlSeconds: number | undefined;
  private readonly ownsClient: boolean;

  constructor(client: RedisClientType, options: RedisCheckpointerOptions & { ownsClient?: boolean } = {}) {
    super(options.serde ?? new CompactSerializer());
    const ttl = options.ttlSeconds;
    if (ttl !== undefined && (!Number.isInteger(ttl) || ttl <= 0)) {
      throw new MemoryGraphError("INVALID_INPUT", "ttlSeconds: must be a positive integer", { field: "ttlSeconds" });
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

  override getNextVersion(current: ChannelVersion | undefined): number {
    return nextVersion(current);
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const { threadId, ns, checkpointId } = addressOf(config);
    if (threadId === undefined) return undefined;
    const id = checkpointId ?? (await newestId(this, threadId, ns));
    return id === undefined ? undefined : loadTuple(this, { threadId, ns, id });
  }

  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const { threadId } = addressOf(config);
    const rawNs: unknown = config.configurable?.["checkpoint_ns"];
    const ns = typeof rawNs === "string" ? rawNs : undefined;
    const before = options.before === undefined ? undefined : addressOf(options.before).checkpointId;
    const filter = cleanFilter(options.filter);
    let remaining = options.limit !== undefined && options.limit > 0 ? Math.floor(options.limit) : Infinity;
    const want = filter.length === 0 ? remaining : Infinity;
    for await (const at of candidates(this, threadId, ns, before, want)) {
      if (remaining <= 0) return;
      const tuple = await loadTuple(this, at);
      if (tuple === undefined || !metadataMatches(tuple.metadata, filter)) continue;
      remaining -= 1;
      yield tuple;
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const threadId = requireThread(config, "put");
    const { ns, checkpointId: parentId } = addressOf(config);
    const keys = this.keys(threadId);
    const [[checkpointType, checkpointBytes], [metadataType, metadataBytes]] = await Promise.all([
      this.serde.dumpsTyped(withoutValues(checkpoint)),
      this.serde.dumpsTyped(metadata),
    ]);
    const record: CheckpointRecord = {
      parent: parentId ?? null,
      checkpointType,
      checkpoint: toBase64(checkpointBytes),
      metadataType,
      metadata: toBase64(metadataBytes),
    };
    const blobs: Record<string, string> = {};
    await Promise.all(
      Object.entries(newVersions).map(async ([channel, version]) => {
        let blob: BlobRecord = [EMPTY_BLOB_TYPE, null];
        if (channel in checkpoint.channel_values) {
          const [type, bytes] = await this.serde.dumpsTyped(checkpoint.channel_values[channel]);
          blob = [type, toBase64(bytes)];
        }
        blobs[blobField(ns, channel, versionKey(version))] = JSON.stringify(blob);
      }),
    );
    const member = checkpointField(ns, checkpoint.id);
    const multi = this.client.multi();
    if (Object.keys(blobs).length > 0) multi.hSet(keys.blobs, blobs);
    multi.hSet(keys.cp, member, JSON.stringify(record));
    multi.zAdd(keys.idx, { score: 0, value: member });
    const ttl = this.ttlSeconds;
    if (ttl !== undefined) for (const key of allKeys(keys)) multi.expire(key, ttl);
    await multi.exec();
    return checkpointConfig(threadId, ns, checkpoint.id);
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath = ""): Promise<void> {
    const { threadId, ns, checkpointId } = requireCheckpoint(config, "putWrites");
    const keys = this.keys(threadId);
    const replace = allSpecial(writes.map(([channel]) => channel));
    const records = await Promise.all(
      writes.map(async ([channel, value], position): Promise<WriteRecord> => {
        const [type, bytes] = await this.serde.dumpsTyped(value);
        return { taskId, taskPath, idx: writeIndex(channel, position), channel, type, value: toBase64(bytes) };
      }),
    );
    const multi = this.client.multi();
    for (const record of records) {
      const field = writeField(ns, checkpointId, taskId, record.idx);
      // Ordinary writes keep the first value stored (a retried task must not change history).
      if (replace) multi.hSet(keys.w, field, JSON.stringify(record));
      else multi.hSetNX(keys.w, field, JSON.stringify(record));
      multi.zAdd(keys.wi, { score: 0, value: field });
    }
    const ttl = this.ttlSeconds;
    if (ttl !== undefined) for (const key of allKeys(keys)) multi.expire(key, ttl);
    await multi.exec();
  }

  async deleteThread(threadId: string): Promise<void> {
    await this.client.del(allKeys(this.keys(threadId)));
  }

  /** Closes the client when this checkpointer opened it; otherwise leaves it to its owner. */
  async close(): Promise<void> {
    if (this.ownsClient && this.client.isOpen) await this.client.close();
  }

  private keys(threadId: string): ThreadKeys {
    return threadKeys(this.keyPrefix, threadId);
  }
}
