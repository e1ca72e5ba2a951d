import { type Checkpoint, type CheckpointMetadata, type CheckpointTuple } from "@langchain/langgraph-checkpoint";
import {
  EMPTY_BLOB_TYPE,
  checkpointConfig,
  loadWrites,
  migratePendingSends,
  versionKey,
  type StoredWrite,
} from "./checkpoint-common.js";

/** A serialised value as an engine stored it: its serde type and its stored form `V`. */
export interface StoredValue<V> {
  type: string;
  value: V;
}

/** What an engine read of one checkpoint, in its own stored form `V`, and how to read the rest. */
export interface StoredTuple<V> {
  threadId: string;
  ns: string;
  id: string;
  parentId: string | null;
  checkpoint: StoredValue<V>;
  metadata: StoredValue<V>;
  /** The checkpoint's own pending writes. */
  writes: readonly StoredWrite<V>[];
  /** The stored values of these channel versions, in order (undefined where none is stored). */
  readBlobs(versions: readonly { channel: string; version: string }[]): Promise<(StoredValue<V> | undefined)[]>;
  /** The writes to TASKS of checkpoint `parentId` (read only for checkpoints older than format v4). */
  readParentSends(parentId: string): Promise<StoredWrite<V>[]>;
}

/**
 * Builds a `CheckpointTuple` from what an engine stored: deserialises the checkpoint and its
 * metadata, rebuilds `channel_values` from `channel_versions` (one stored value per version),
 * migrates a pre-v4 checkpoint's pending sends, and sorts and deserialises its pending writes.
 */
export async function assembleTuple<V>(load: (type: string, value: V) => Promise<unknown>, stored: StoredTuple<V>): Promise<CheckpointTuple> {
  const { threadId, ns, id, parentId } = stored;
  const [saved, metadata] = await Promise.all([
    load(stored.checkpoint.type, stored.checkpoint.value) as Promise<Omit<Checkpoint, "channel_values">>,
    load(stored.metadata.type, stored.metadata.value) as Promise<CheckpointMetadata>,
  ]);
  const checkpoint: Checkpoint = { ...saved, channel_values: {} };
  const versions = Object.entries(checkpoint.channel_versions).map(([channel, version]) => ({ channel, version: versionKey(version) }));
  if (versions.length > 0) {
    const blobs = await stored.readBlobs(versions);
    await Promise.all(
      versions.map(async ({ channel }, i) => {
        const blob = blobs[i];
        if (blob !== undefined && blob.type !== EMPTY_BLOB_TYPE) checkpoint.channel_values[channel] = await load(blob.type, blob.value);
      }),
    );
  }
  if (checkpoint.v < 4 && parentId !== null) {
    const loaded = await loadWrites(load, await stored.readParentSends(parentId));
    migratePendingSends(checkpoint, loaded.map(([, , value]) => value));
  }
  return {
    config: checkpointConfig(threadId, ns, id),
    checkpoint,
    metadata,
    parentConfig: parentId === null ? undefined : checkpointConfig(threadId, ns, parentId),
    pendingWrites: await loadWrites(load, stored.writes),
  };
}
