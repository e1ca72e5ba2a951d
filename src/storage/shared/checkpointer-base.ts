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
import {
  EMPTY_BLOB_TYPE,
  addressOf,
  allSpecial,
  checkpointConfig,
  cleanFilter,
  nextVersion,
  requireCheckpoint,
  requireThread,
  versionKey,
  withoutValues,
  writeIndex,
  type ChannelVersion,
} from "./checkpoint-common.js";
import { CompactSerializer } from "./checkpoint-serde.js";

/** What `list` asks of an engine, parsed once: every field optional but the (possibly empty) metadata filter. */
export interface ListQuery {
  threadId?: string;
  ns?: string;
  /** Only checkpoints older than this id. */
  before?: string;
  /** Metadata fields that must match exactly (see `cleanFilter`). */
  filter: [string, unknown][];
  /** At most this many tuples (a positive integer), or all. */
  limit?: number;
}

/** One channel value of a checkpoint, serialised; `bytes` null for a channel without a value. */
export interface SerializedBlob {
  channel: string;
  /** The version as `versionKey` renders it. */
  version: string;
  type: string;
  bytes: Uint8Array | null;
}

/** A checkpoint as an engine stores it: its values apart, each serialised once per version. */
export interface SerializedCheckpoint {
  threadId: string;
  ns: string;
  id: string;
  parentId: string | undefined;
  /** The checkpoint without `channel_values`, serialised. */
  checkpoint: [type: string, bytes: Uint8Array];
  metadata: [type: string, bytes: Uint8Array];
  channelVersions: ChannelVersions;
  blobs: SerializedBlob[];
}

/** One pending write, serialised, at its index (see `writeIndex`). */
export interface SerializedWrite {
  idx: number;
  channel: string;
  type: string;
  bytes: Uint8Array;
}

/** The pending writes of one task. `replace`: all to special channels, so a retry overwrites; otherwise the first value stored stays. */
export interface SerializedWrites {
  threadId: string;
  ns: string;
  checkpointId: string;
  taskId: string;
  taskPath: string;
  replace: boolean;
  writes: SerializedWrite[];
}

/**
 * The base of our checkpointers that store channel values apart (SQLite, Redis): it parses
 * `list` options, serialises `put` and `putWrites`, and numbers versions, and hands an engine
 * storage primitives only — run a parsed list query, store one serialised checkpoint (one
 * transaction), store one task's serialised writes. Reading back (`getTuple`) stays the engine's.
 */
export abstract class StoredCheckpointer extends BaseCheckpointSaver {
  constructor(serde?: SerializerProtocol) {
    super(serde ?? new CompactSerializer());
  }

  /** The tuples a parsed query asks for, newest first. */
  protected abstract listStored(query: ListQuery): AsyncGenerator<CheckpointTuple>;
  /** Stores a checkpoint and its new channel values atomically. */
  protected abstract storeCheckpoint(checkpoint: SerializedCheckpoint): Promise<void>;
  /** Stores one task's writes atomically. */
  protected abstract storeWrites(writes: SerializedWrites): Promise<void>;

  override getNextVersion(current: ChannelVersion | undefined): number {
    return nextVersion(current);
  }

  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    const { threadId } = addressOf(config);
    const rawNs: unknown = config.configurable?.["checkpoint_ns"];
    yield* this.listStored({
      threadId,
      ns: typeof rawNs === "string" ? rawNs : undefined,
      before: options.before === undefined ? undefined : addressOf(options.before).checkpointId,
      filter: cleanFilter(options.filter),
      limit: options.limit !== undefined && options.limit > 0 ? Math.floor(options.limit) : undefined,
    });
  }

  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const threadId = requireThread(config, "put");
    const { ns, checkpointId: parentId } = addressOf(config);
    const [checkpointBytes, metadataBytes] = await Promise.all([this.serde.dumpsTyped(withoutValues(checkpoint)), this.serde.dumpsTyped(metadata)]);
    const blobs = await Promise.all(
      Object.entries(newVersions).map(async ([channel, version]): Promise<SerializedBlob> => {
        const [type, bytes] =
          channel in checkpoint.channel_values ? await this.serde.dumpsTyped(checkpoint.channel_values[channel]) : [EMPTY_BLOB_TYPE, null];
        return { channel, version: versionKey(version), type, bytes };
      }),
    );
    await this.storeCheckpoint({
      threadId,
      ns,
      id: checkpoint.id,
      parentId,
      checkpoint: checkpointBytes,
      metadata: metadataBytes,
      channelVersions: checkpoint.channel_versions ?? {},
      blobs,
    });
    return checkpointConfig(threadId, ns, checkpoint.id);
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath = ""): Promise<void> {
    const { threadId, ns, checkpointId } = requireCheckpoint(config, "putWrites");
    const serialized = await Promise.all(
      writes.map(async ([channel, value], position): Promise<SerializedWrite> => {
        const [type, bytes] = await this.serde.dumpsTyped(value);
        return { idx: writeIndex(channel, position), channel, type, bytes };
      }),
    );
    const replace = allSpecial(writes.map(([channel]) => channel));
    await this.storeWrites({ threadId, ns, checkpointId, taskId, taskPath, replace, writes: serialized });
  }
}
