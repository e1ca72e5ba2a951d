import type { RunnableConfig } from "@langchain/core/runnables";
import type { BaseCheckpointSaver, CheckpointPendingWrite, CheckpointTuple, PendingWrite } from "@langchain/langgraph-checkpoint";
import { log } from "../logger.js";
import { legacyThreadOf } from "../memory/scope.js";

/**
 * Reads a checkpoint as `checkpointer.getTuple` does, adopting a session's thread of the naming
 * earlier releases used (ids as given; see `legacyThreadOf`): when the latest checkpoint of a
 * session's thread is asked for and there is none, the old thread's latest checkpoint and its
 * pending writes are written under the new thread through the ordinary `BaseCheckpointSaver`
 * calls, the old thread is deleted, and the adopted checkpoint is returned. So an upgrade loses no
 * session, on any engine, and adopts each once.
 *
 * Costs: ids without `.`, `:` or `%` (and any read of a given checkpoint id, a subgraph's
 * namespace, a caller's own thread id) make the one read they asked for; a miss on a session with
 * such ids makes one more read, and writes only when there was an old thread. Running twice (two
 * processes, a read timed out mid-way) is harmless: the put of the same checkpoint id replaces
 * itself, and a second read finds the adopted checkpoint or, once the old thread is gone, nothing.
 */
export async function getTupleAdopting(checkpointer: BaseCheckpointSaver, config: RunnableConfig): Promise<CheckpointTuple | undefined> {
  const found = await checkpointer.getTuple(config);
  const { thread_id: threadId, checkpoint_ns: ns = "", checkpoint_id: checkpointId } = (config.configurable ?? {}) as Record<string, unknown>;
  if (found || typeof threadId !== "string" || ns !== "" || checkpointId !== undefined) return found;
  const legacy = legacyThreadOf(threadId);
  return legacy === undefined ? undefined : adopt(checkpointer, threadId, legacy);
}

async function adopt(checkpointer: BaseCheckpointSaver, threadId: string, legacy: string): Promise<CheckpointTuple | undefined> {
  const old = await checkpointer.getTuple({ configurable: { thread_id: legacy, checkpoint_ns: "" } });
  if (!old) return undefined;
  const { checkpoint } = old;
  const metadata = old.metadata ?? { source: "update", step: -1, parents: {} };
  // Every channel counts as new, so an engine that keeps channel values apart writes each of them.
  const saved = await checkpointer.put({ configurable: { thread_id: threadId, checkpoint_ns: "" } }, checkpoint, metadata, checkpoint.channel_versions);
  for (const [taskId, writes] of byTask(old.pendingWrites ?? [])) await checkpointer.putWrites(saved, writes, taskId);
  await checkpointer.deleteThread(legacy);
  log.info("checkpoint.legacy_thread_adopted", { channels: Object.keys(checkpoint.channel_versions).length, pending_writes: old.pendingWrites?.length ?? 0 });
  // Only the latest checkpoint is adopted: it has no parent under the new thread.
  return { config: saved, checkpoint, metadata, pendingWrites: old.pendingWrites };
}

/** Pending writes grouped by the task that made them, in their order. */
function byTask(writes: CheckpointPendingWrite[]): Map<string, PendingWrite[]> {
  const tasks = new Map<string, PendingWrite[]>();
  for (const [taskId, channel, value] of writes) {
    const list = tasks.get(taskId) ?? [];
    list.push([channel, value]);
    tasks.set(taskId, list);
  }
  return tasks;
}
