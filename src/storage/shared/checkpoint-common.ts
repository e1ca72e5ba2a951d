import { isDeepStrictEqual } from "node:util";
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  TASKS,
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  copyCheckpoint,
  maxChannelVersion,
  writesSortKey,

  type ChannelVersions,
  type Checkpoint,
  type CheckpointPendingWrite,
} from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../../errors.js";

/** One channel version as LangGraph stores it. */
export type ChannelVersion = ChannelVersions[string];

/**
 * Helpers shared by the project's checkpointers (SQLite and Redis). Both store a checkpoint
 * without its `channel_values` and each channel value once per (thread, namespace, channel,
 * version), so these helpers deal with the parts that do not touch storage.
 */

/** Where a config points: a thread (maybe absent), a namespace ("" by default), maybe a checkpoint. */
export interface CheckpointAddress {
  threadId: string | undefined;
  ns: string;
  checkpointId: string | undefined;
}

/** Reads thread_id / checkpoint_ns / checkpoint_id from a config; never throws. */
export function addressOf(config: RunnableConfig): CheckpointAddress {
  const c: Record<string, unknown> = config.configurable ?? {};
  const threadId = c["thread_id"];
  const ns = c["checkpoint_ns"];
  const checkpointId = c["checkpoint_id"] ?? c["thread_ts"];
  return {
    threadId: typeof threadId === "string" || typeof threadId === "number" ? String(threadId) || undefined : undefined,
    ns: typeof ns === "string" ? ns : "",
    checkpointId: typeof checkpointId === "string" && checkpointId !== "" ? checkpointId : undefined,
  };
}

/** The thread of `config`, or a `CHECKPOINT_CONFIG_INVALID` error naming the operation. */
export function requireThread(config: RunnableConfig, operation: string): string {
  if (config.configurable === undefined) {
    throw new MemoryGraphError("CHECKPOINT_CONFIG_INVALID", `${operation}: config.configurable is missing`, {
      kind: "system",
      field: "configurable",
    });
  }
  const { threadId } = addressOf(config);
  if (threadId === undefined) {
    throw new MemoryGraphError("CHECKPOINT_CONFIG_INVALID", `${operation}: configurable.thread_id is missing`, {
      kind: "system",
      field: "thread_id",
    });
  }
  return threadId;
}

/** Like `requireThread`, and also requires a checkpoint id (writes belong to one checkpoint). */
export function requireCheckpoint(
  config: RunnableConfig,
  operation: string,
): { threadId: string; ns: string; checkpointId: string } {
  const threadId = requireThread(config, operation);
  const { ns, checkpointId } = addressOf(config);
  if (checkpointId === undefined) {
    throw new MemoryGraphError("CHECKPOINT_CONFIG_INVALID", `${operation}: configurable.checkpoint_id is missing`, {
      kind: "system",
      field: "checkpoint_id",
    });
  }
  return { threadId, ns, checkpointId };
}

/** The config LangGraph expects back: exactly thread_id, checkpoint_ns and checkpoint_id. */
export function checkpointConfig(threadId: string, ns: string, checkpointId: string): RunnableConfig {
  return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpointId } };
}

/** A checkpoint with `channel_values` removed (they are stored per channel version). */
export function withoutValues(checkpoint: Checkpoint): Omit<Checkpoint, "channel_values"> {
  const copy: Partial<Checkpoint> = copyCheckpoint(checkpoint);
  delete copy.channel_values;
  return copy as Omit<Checkpoint, "channel_values">;
}

/** Storage key of a channel version; numbers and strings both map to their string form. */
export function versionKey(version: ChannelVersion): string {
  return String(version);
}

/** Marker type of a blob whose channel had a new version but no value (e.g. a cleared channel). */
export const EMPTY_BLOB_TYPE = "empty";

/**
 * Next channel version: the integer part grows by one, plus a random fraction below 0.5.
 * Versions stay monotonic numbers, and two branches forked from the same checkpoint get
 * different versions for their different values, so storing one value per version is safe.
 */
export function nextVersion(current: ChannelVersion | undefined): number {
  const base = current === undefined ? 0 : Math.floor(typeof current === "number" ? current : parseFloat(current));
  return (Number.isFinite(base) ? base : 0) + 1 + Math.random() * 0.5;
}

/** The index a write is stored under: its position, or the fixed negative index of a special channel. */
export function writeIndex(channel: string, position: number): number {
  return WRITES_IDX_MAP[channel] ?? position;
}

/** True when every write goes to a special channel (those replace; ordinary writes never do). */
export function allSpecial(channels: readonly string[]): boolean {
  return channels.every((channel) => channel in WRITES_IDX_MAP);
}

/** One stored pending write, before its value is deserialized. */
export interface StoredWrite<V> {
  taskId: string;
  taskPath: string;
  idx: number;
  channel: string;
  type: string;
  value: V;
}

/** Sorts stored writes into `writesSortKey` order (task_path, task_id, idx); returns a new array. */
export function sortWrites<V>(writes: readonly StoredWrite<V>[]): StoredWrite<V>[] {
  return [...writes].sort((a, b) =>
    compareWritesSortKeys(writesSortKey(a.taskPath, a.taskId, a.idx), writesSortKey(b.taskPath, b.taskId, b.idx)),
  );
}

/** Deserializes sorted stored writes into LangGraph's `[taskId, channel, value]` triples. */
export async function loadWrites<V>(
  load: (type: string, value: V) => Promise<unknown>,
  writes: readonly StoredWrite<V>[],
): Promise<CheckpointPendingWrite[]> {
  return Promise.all(
    sortWrites(writes).map(
      async (w): Promise<CheckpointPendingWrite> => [w.taskId, w.channel, await load(w.type, w.value)],
    ),
  );
}

/**
 * Checkpoints older than format v4 kept pending sends as writes to TASKS on their parent;
 * moves those sends into `channel_values[TASKS]` the way LangGraph's own savers do. Mutates
 * `checkpoint`.
 */
export function migratePendingSends(checkpoint: Checkpoint, sends: unknown[]): void {
  checkpoint.channel_values[TASKS] = sends;
  const versions = Object.values(checkpoint.channel_versions);
  checkpoint.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : nextVersion(undefined);
}

/** Drops filter entries whose value is undefined (they constrain nothing). */
export function cleanFilter(filter: Record<string, unknown> | undefined): [string, unknown][] {
  return Object.entries(filter ?? {}).filter(([, value]) => value !== undefined);
}

/** True when every filter entry deep-equals the same key of `metadata`. */
export function metadataMatches(metadata: unknown, filter: readonly [string, unknown][]): boolean {
  if (filter.length === 0) return true;
  if (typeof metadata !== "object" || metadata === null) return false;
  const record = metadata as Record<string, unknown>;
  return filter.every(([key, value]) => isDeepStrictEqual(record[key], value));
}
