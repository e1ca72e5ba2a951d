import Database from "better-sqlite3";
import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  TASKS,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../../errors.js";
import { log } from "../../logger.js";
import { CompactSerializer } from "./checkpoint-serde.js";
import {
  EMPTY_BLOB_TYPE,
  addressOf,
  allSpecial,
  checkpointConfig,
  cleanFilter,
  loadWrites,
  migratePendingSends,
  nextVersion,
  requireCheckpoint,
  requireThread,
  versionKey,
  withoutValues,
  writeIndex,
  type ChannelVersion,
  type StoredWrite,
} from "./checkpoint-common.js";
import {
  CHECKPOINT_SCHEMA,
  listSql,
  prepareStatements,
  type CheckpointRow,
  type CheckpointStatements,
  type WriteRow,
} from "./sqlite-checkpointer-schema.js";
import { writeWhenFree } from "./sqlite-write.js";

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
export class SqliteCheckpointer extends BaseCheckpointSaver {
  readonly db: Database.Database;
  private statements: CheckpointStatements | undefined;
  private readonly listStatements = new Map<string, Database.Statement<unknown[], CheckpointRow>>();
  private readonly ownsDb: boolean;

  constructor(db: Database.Database, serde?: SerializerProtocol, options: { ownsDb?: boolean } = {}) {
    super(serde ?? new CompactSerializer());
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
    this.db.pragma("journal_mode = WAL");
    this.db.exec(CHECKPOINT_SCHEMA);
    this.statements = prepareStatements(this.db);
    return this.statements;
  }

  override getNextVersion(current: ChannelVersion | undefined): number {
    return nextVersion(current);
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const s = this.setup();
    const { threadId, ns, checkpointId } = addressOf(config);
    if (threadId === undefined) return undefined;
    const row =
      checkpointId === undefined ? s.selectLatest.get(threadId, ns) : s.selectOne.get(threadId, ns, checkpointId);
    return row === undefined ? undefined : this.toTuple(row);
  }

  async *list(config: RunnableConfig, options: CheckpointListOptions = {}): AsyncGenerator<CheckpointTuple> {
    this.setup();
    const { threadId } = addressOf(config);
    const rawNs: unknown = config.configurable?.["checkpoint_ns"];
    const ns = typeof rawNs === "string" ? rawNs : undefined;
    const before = options.before === undefined ? undefined : addressOf(options.before).checkpointId;
    const filter = cleanFilter(options.filter);
    const limit = options.limit !== undefined && options.limit > 0 ? Math.floor(options.limit) : undefined;
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

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const s = this.setup();
    const threadId = requireThread(config, "put");
    const { ns, checkpointId: parentId } = addressOf(config);
    const [[checkpointType, checkpointBytes], [metadataType, metadataBytes]] = await Promise.all([
      this.serde.dumpsTyped(withoutValues(checkpoint)),
      this.serde.dumpsTyped(metadata),
    ]);
    const blobs = await Promise.all(
      Object.entries(newVersions).map(async ([channel, version]) => {
        const [type, bytes] =
          channel in checkpoint.channel_values
            ? await this.serde.dumpsTyped(checkpoint.channel_values[channel])
            : [EMPTY_BLOB_TYPE, null];
        return [threadId, ns, channel, versionKey(version), type, bytes] as const;
      }),
    );
    await writeWhenFree(this.db, () =>
      this.db.transaction(() => {
        for (const blob of blobs) s.upsertBlob.run(...blob);
        s.upsertCheckpoint.run(
          threadId,
          ns,
          checkpoint.id,
          parentId ?? null,
          checkpointType,
          checkpointBytes,
          metadataType,
          metadataBytes,
          JSON.stringify(checkpoint.channel_versions ?? {}),
        );
      }).immediate(),
    );
    return checkpointConfig(threadId, ns, checkpoint.id);
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath = ""): Promise<void> {
    const s = this.setup();
    const { threadId, ns, checkpointId } = requireCheckpoint(config, "putWrites");
    const statement = allSpecial(writes.map(([channel]) => channel)) ? s.replaceWrite : s.insertWrite;
    const rows = await Promise.all(
      writes.map(async ([channel, value], position) => {
        const [type, bytes] = await this.serde.dumpsTyped(value);
        const idx = writeIndex(channel, position);
        return [threadId, ns, checkpointId, taskId, idx, channel, type, bytes, taskPath] as const;
      }),
    );
    await writeWhenFree(this.db, () =>
      this.db.transaction(() => {
        for (const row of rows) statement.run(...row);
      }).immediate(),
    );
  }

  async deleteThread(threadId: string): Promise<void> {
    const s = this.setup();
    this.db.transaction(() => {
      s.deleteThreadCheckpoints.run(threadId);
      s.deleteThreadBlobs.run(threadId);
      s.deleteThreadWrites.run(threadId);
    }).immediate();
  }

  /**
   * Keeps the newest `keep` checkpoints of each namespace of `threadId` (at least one: the newest
   * is never removed) and deletes the rest with their pending writes, then the channel values no
   * remaining checkpoint refers to. With `slack`, a namespace holding at most `keep + slack`
   * checkpoints is left alone, so pruning after every turn does its work once per `slack` turns.
   * Returns how many checkpoints were removed.
   */
  pruneThread(threadId: string, keep: number, slack = 0): number {
    const s = this.setup();
    const kept = Math.max(1, Math.floor(Number.isFinite(keep) ? keep : 1));
    const prunable = (ns: string) => {
      const ids = s.selectPrunable.all(threadId, ns, kept);
      return ids.length > slack ? ids : [];
    };
    // Reading first, outside a write transaction: most calls find nothing to do.
    const namespaces = s.selectNamespaces.all(threadId).map((row) => row.checkpoint_ns);
    if (namespaces.every((ns) => prunable(ns).length === 0)) return 0;
    const removed = this.db.transaction(() => {
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
    }).immediate();
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
    const load = (type: string, value: Uint8Array | null) => this.serde.loadsTyped(type, value ?? NO_VALUE);
    const [stored, metadata] = await Promise.all([
      load(row.checkpoint_type, row.checkpoint) as Promise<Omit<Checkpoint, "channel_values">>,
      load(row.metadata_type, row.metadata) as Promise<CheckpointMetadata>,
    ]);
    const checkpoint: Checkpoint = { ...stored, channel_values: {} };
    for (const [channel, version] of Object.entries(checkpoint.channel_versions)) {
      const blob = s.selectBlob.get(threadId, ns, channel, versionKey(version));
      if (blob === undefined || blob.type === EMPTY_BLOB_TYPE) continue;
      checkpoint.channel_values[channel] = await load(blob.type, blob.value);
    }
    if (checkpoint.v < 4 && parentId !== null) {
      const sends = s.selectWritesToChannel.all(threadId, ns, parentId, TASKS);
      const loaded = await loadWrites(load, sends.map(toStoredWrite));
      migratePendingSends(checkpoint, loaded.map(([, , value]) => value));
    }
    const pendingWrites = await loadWrites(load, s.selectWrites.all(threadId, ns, id).map(toStoredWrite));
    return {
      config: checkpointConfig(threadId, ns, id),
      checkpoint,
      metadata,
      parentConfig: parentId === null ? undefined : checkpointConfig(threadId, ns, parentId),
      pendingWrites,
    };
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
