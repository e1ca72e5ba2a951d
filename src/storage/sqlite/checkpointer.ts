import Database from "better-sqlite3";
import type { RunnableConfig } from "@langchain/core/runnables";
import { TASKS, type CheckpointTuple, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../../errors.js";
import { log } from "../../logger.js";
import { addressOf, versionKey, type ChannelVersion, type StoredWrite } from "../shared/checkpoint-common.js";
import { StoredCheckpointer, type ListQuery, type SerializedCheckpoint, type SerializedWrites } from "../shared/checkpointer-base.js";
import { assembleTuple } from "../shared/tuple-assembly.js";
import {
  CHECKPOINT_SCHEMA,
  listSql,
  prepareStatements,
  type CheckpointRow,
  type CheckpointStatements,
  type WriteRow,
} from "./checkpointer-schema.js";
import { useWal } from "./file-format.js";
import { writeWhenFree } from "./write-when-free.js";

const NO_VALUE = new Uint8Array(0);

/**
 * A LangGraph checkpointer on one SQLite file (better-sqlite3, WAL). Unlike the official
 * `SqliteSaver` it stores each channel value once per (thread, namespace, channel, version)
 * and rebuilds `channel_values` from `checkpoint.channel_versions` on read, so a thread's
 * storage grows with what changed, not with (checkpoints × state size).
 *
 * Invariants: tables are created lazily on first use (`setup()` is idempotent); a `put` is one
 * transaction; a blob is never deleted while a checkpoint of its namespace still names its
 * version. `close()` closes the database only when this checkpointer opened it (`fromPath`).
 */
export class SqliteCheckpointer extends StoredCheckpointer {
  readonly db: Database.Database;
  private statements: CheckpointStatements | undefined;
  private readonly listStatements = new Map<string, Database.Statement<unknown[], CheckpointRow>>();
  private readonly ownsDb: boolean;

  constructor(db: Database.Database, serde?: SerializerProtocol, options: { ownsDb?: boolean } = {}) {
    super(serde);
    this.db = db;
    this.ownsDb = options.ownsDb ?? false;
  }

  /** Opens (or creates) the SQLite file at `path`; the checkpointer owns and closes it. */
  static fromPath(path: string, serde?: SerializerProtocol): SqliteCheckpointer {
    return new SqliteCheckpointer(new Database(path), serde, { ownsDb: true });
  }

  /** Creates the `checkpoint_*` tables and prepares statements. Idempotent; called lazily. */
  setup(): CheckpointStatements {
    if (this.statements !== undefined) return this.statements;
    if (!this.db.open) {
      throw new MemoryGraphError("CHECKPOINTER_CLOSED", "the SQLite database is closed", { kind: "system" });
    }
    useWal(this.db);
    this.db.exec(CHECKPOINT_SCHEMA);
    this.statements = prepareStatements(this.db);
    return this.statements;
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const s = this.setup();
    const { threadId, ns, checkpointId } = addressOf(config);
    if (threadId === undefined) return undefined;
    const row =
      checkpointId === undefined ? s.selectLatest.get(threadId, ns) : s.selectOne.get(threadId, ns, checkpointId);
    return row === undefined ? undefined : this.toTuple(row);
  }

  protected async *listStored(query: ListQuery): AsyncGenerator<CheckpointTuple> {
    this.setup();
    const { threadId, ns, before, filter, limit } = query;
    const sql = listSql({
      thread: threadId !== undefined,
      ns: ns !== undefined,
      before: before !== undefined,
      filterKeys: filter.length,
      limit: limit !== undefined,
    });
    let statement = this.listStatements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare<unknown[], CheckpointRow>(sql);
      this.listStatements.set(sql, statement);
    }
    const args: unknown[] = [];
    if (threadId !== undefined) args.push(threadId);
    if (ns !== undefined) args.push(ns);
    if (before !== undefined) args.push(before);
    for (const [key, value] of filter) args.push(`$."${key}"`, JSON.stringify(value));
    if (limit !== undefined) args.push(limit);
    // Rows are read eagerly: a generator left open must not hold a statement iterator.
    for (const row of statement.all(...args)) yield await this.toTuple(row);
  }

  protected async storeCheckpoint(c: SerializedCheckpoint): Promise<void> {
    const s = this.setup();
    const row = [c.threadId, c.ns, c.id, c.parentId ?? null, ...c.checkpoint, ...c.metadata, JSON.stringify(c.channelVersions)] as const;
    await writeWhenFree(this.db, () =>
      this.db.transaction(() => {
        for (const blob of c.blobs) s.upsertBlob.run(c.threadId, c.ns, blob.channel, blob.version, blob.type, blob.bytes);
        s.upsertCheckpoint.run(...row);
      }).immediate(),
    );
  }

  protected async storeWrites(w: SerializedWrites): Promise<void> {
    const s = this.setup();
    const statement = w.replace ? s.replaceWrite : s.insertWrite;
    await writeWhenFree(this.db, () =>
      this.db.transaction(() => {
        for (const write of w.writes) {
          statement.run(w.threadId, w.ns, w.checkpointId, w.taskId, write.idx, write.channel, write.type, write.bytes, w.taskPath);
        }
      }).immediate(),
    );
  }

  /** Deletes a thread in one write transaction, waiting for the write lock without blocking the event loop. */
  async deleteThread(threadId: string): Promise<void> {
    const s = this.setup();
    await writeWhenFree(this.db, () =>
      this.db.transaction(() => {
        s.deleteThreadCheckpoints.run(threadId);
        s.deleteThreadBlobs.run(threadId);
        s.deleteThreadWrites.run(threadId);
      }).immediate(),
    );
  }

  /** Every thread id holding a checkpoint. */
  async listThreadIds(): Promise<string[]> {
    this.setup();
    return (this.db.prepare("SELECT DISTINCT thread_id FROM checkpoint_checkpoints").all() as { thread_id: string }[]).map((r) => r.thread_id);
  }

  /**
   * Keeps the newest `keep` checkpoints of each namespace of `threadId` (at least one: the newest
   * is never removed) and deletes the rest with their pending writes, then the channel values no
   * remaining checkpoint refers to. With `slack`, a namespace holding at most `keep + slack`
   * checkpoints is left alone, so pruning after every turn does its work once per `slack` turns.
   * Returns how many checkpoints were removed. Called after every turn: the write transaction
   * waits for the write lock without blocking the event loop (see `writeWhenFree`).
   */
  async pruneThread(threadId: string, keep: number, slack = 0): Promise<number> {
    const s = this.setup();
    const kept = Math.max(1, Math.floor(Number.isFinite(keep) ? keep : 1));
    const prunable = (ns: string) => {
      const ids = s.selectPrunable.all(threadId, ns, kept);
      return ids.length > slack ? ids : [];
    };
    // Reading first, outside a write transaction: most calls find nothing to do.
    const namespaces = s.selectNamespaces.all(threadId).map((row) => row.checkpoint_ns);
    if (namespaces.every((ns) => prunable(ns).length === 0)) return 0;
    const removed = await writeWhenFree(this.db, () =>
      this.db.transaction(() => {
        let count = 0;
        for (const ns of namespaces) {
          const doomed = prunable(ns);
          for (const { checkpoint_id: id } of doomed) {
            s.deleteCheckpointWrites.run(threadId, ns, id);
            count += s.deleteCheckpoint.run(threadId, ns, id).changes;
          }
          if (doomed.length > 0) this.deleteUnreferencedBlobs(threadId, ns);
        }
        return count;
      }).immediate(),
    );
    if (removed > 0) log.debug("checkpoint_pruned", { threadId, removed, kept });
    return removed;
  }

  /**
   * Deletes the channel values of one namespace that no remaining checkpoint names. Compared in
   * JS, by `versionKey`: SQLite renders a REAL version with 15 significant digits, not as
   * `String(version)` does, so an SQL comparison deletes values still in use.
   */
  private deleteUnreferencedBlobs(threadId: string, ns: string): void {
    const referenced = new Set<string>();
    const rows = this.db
      .prepare("SELECT channel_versions FROM checkpoint_checkpoints WHERE thread_id = ? AND checkpoint_ns = ?")
      .all(threadId, ns) as { channel_versions: string }[];
    for (const row of rows) {
      for (const [channel, version] of Object.entries(JSON.parse(row.channel_versions) as Record<string, ChannelVersion>)) {
        referenced.add(`${channel}\u0000${versionKey(version)}`);
      }
    }
    const blobs = this.db
      .prepare("SELECT channel, version FROM checkpoint_blobs WHERE thread_id = ? AND checkpoint_ns = ?")
      .all(threadId, ns) as { channel: string; version: string }[];
    const remove = this.db.prepare("DELETE FROM checkpoint_blobs WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND version = ?");
    for (const blob of blobs) {
      if (!referenced.has(`${blob.channel}\u0000${blob.version}`)) remove.run(threadId, ns, blob.channel, blob.version);
    }
  }

  /** Stops using the database; closes it only when this checkpointer opened it. */
  close(): void {
    this.statements = undefined;
    this.listStatements.clear();
    if (this.ownsDb && this.db.open) this.db.close();
  }

  private async toTuple(row: CheckpointRow): Promise<CheckpointTuple> {
    const s = this.setup();
    const { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: id, parent_checkpoint_id: parentId } = row;
    return assembleTuple((type: string, value: Uint8Array | null) => this.serde.loadsTyped(type, value ?? NO_VALUE), {
      threadId,
      ns,
      id,
      parentId,
      checkpoint: { type: row.checkpoint_type, value: row.checkpoint },
      metadata: { type: row.metadata_type, value: row.metadata },
      writes: s.selectWrites.all(threadId, ns, id).map(toStoredWrite),
      readBlobs: async (versions) => versions.map(({ channel, version }) => s.selectBlob.get(threadId, ns, channel, version)),
      readParentSends: async (parent) => s.selectWritesToChannel.all(threadId, ns, parent, TASKS).map(toStoredWrite),
    });
  }
}

function toStoredWrite(row: WriteRow): StoredWrite<Uint8Array | null> {
  return {
    taskId: row.task_id,
    taskPath: row.task_path,
    idx: row.idx,
    channel: row.channel,
    type: row.type,
    value: row.value,
  };
}
