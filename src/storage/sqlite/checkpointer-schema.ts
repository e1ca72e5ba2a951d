import type Database from "better-sqlite3";
import { COMPACT_JSON_TYPE } from "../shared/checkpoint-serde.js";

/**
 * Tables and prepared statements of `SqliteCheckpointer`. Every table name starts with
 * `checkpoint_` because the same SQLite file also holds the store's tables.
 *
 * - `checkpoint_checkpoints`: one row per checkpoint, serialized WITHOUT channel_values;
 *   `channel_versions` is kept as JSON text too so pruning can find unreferenced blobs in SQL.
 * - `checkpoint_blobs`: one row per (thread, namespace, channel, version): a value is stored
 *   once, by the checkpoint that created that version.
 * - `checkpoint_writes`: pending writes of a checkpoint, keyed (task_id, idx) within it.
 */
export const CHECKPOINT_SCHEMA = `
CREATE TABLE IF NOT EXISTS checkpoint_checkpoints (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  checkpoint_id TEXT NOT NULL,
  parent_checkpoint_id TEXT,
  checkpoint_type TEXT NOT NULL,
  checkpoint BLOB NOT NULL,
  metadata_type TEXT NOT NULL,
  metadata BLOB NOT NULL,
  channel_versions TEXT NOT NULL,
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
);
CREATE TABLE IF NOT EXISTS checkpoint_blobs (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  channel TEXT NOT NULL,
  version TEXT NOT NULL,
  type TEXT NOT NULL,
  value BLOB,
  PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
);
CREATE TABLE IF NOT EXISTS checkpoint_writes (
  thread_id TEXT NOT NULL,
  checkpoint_ns TEXT NOT NULL DEFAULT '',
  checkpoint_id TEXT NOT NULL,
  task_id TEXT NOT NULL,
  idx INTEGER NOT NULL,
  channel TEXT NOT NULL,
  type TEXT NOT NULL,
  value BLOB,
  task_path TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
);
`;

/** A checkpoint row as selected by the statements below. */
export interface CheckpointRow {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  checkpoint_type: string;
  checkpoint: Uint8Array;
  metadata_type: string;
  metadata: Uint8Array;
}

/** A pending-write row. */
export interface WriteRow {
  task_id: string;
  task_path: string;
  idx: number;
  channel: string;
  type: string;
  value: Uint8Array | null;
}

/** A channel-value row. */
export interface BlobRow {
  type: string;
  value: Uint8Array | null;
}

export const CHECKPOINT_COLUMNS =
  "thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint_type, checkpoint, metadata_type, metadata";

type Stmt<P extends unknown[], R = unknown> = Database.Statement<P, R>;
type Key3 = [string, string, string];
type Key4 = [string, string, string, string];

/** The statements prepared once by `SqliteCheckpointer.setup()`. */
export interface CheckpointStatements {
  selectOne: Stmt<Key3, CheckpointRow>;
  selectLatest: Stmt<[string, string], CheckpointRow>;
  selectWrites: Stmt<Key3, WriteRow>;
  selectWritesToChannel: Stmt<Key4, WriteRow>;
  selectBlob: Stmt<Key4, BlobRow>;
  upsertCheckpoint: Stmt<unknown[]>;
  upsertBlob: Stmt<unknown[]>;
  insertWrite: Stmt<unknown[]>;
  replaceWrite: Stmt<unknown[]>;
  deleteThreadCheckpoints: Stmt<[string]>;
  deleteThreadBlobs: Stmt<[string]>;
  deleteThreadWrites: Stmt<[string]>;
  selectNamespaces: Stmt<[string], { checkpoint_ns: string }>;
  selectPrunable: Stmt<[string, string, number], { checkpoint_id: string }>;
  deleteCheckpoint: Stmt<Key3>;
  deleteCheckpointWrites: Stmt<Key3>;
}

/** Prepares every fixed statement once (the caller has created the schema). */
export function prepareStatements(db: Database.Database): CheckpointStatements {
  const ckpt = "checkpoint_checkpoints";
  return {
    selectOne: db.prepare<[string, string, string], CheckpointRow>(
      `SELECT ${CHECKPOINT_COLUMNS} FROM ${ckpt} WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`,
    ),
    selectLatest: db.prepare<[string, string], CheckpointRow>(
      `SELECT ${CHECKPOINT_COLUMNS} FROM ${ckpt} WHERE thread_id = ? AND checkpoint_ns = ?
       ORDER BY checkpoint_id DESC LIMIT 1`,
    ),
    selectWrites: db.prepare<[string, string, string], WriteRow>(
      `SELECT task_id, task_path, idx, channel, type, value FROM checkpoint_writes
       WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`,
    ),
    selectWritesToChannel: db.prepare<[string, string, string, string], WriteRow>(
      `SELECT task_id, task_path, idx, channel, type, value FROM checkpoint_writes
       WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? AND channel = ?`,
    ),
    selectBlob: db.prepare<[string, string, string, string], BlobRow>(
      `SELECT type, value FROM checkpoint_blobs
       WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND version = ?`,
    ),
    upsertCheckpoint: db.prepare(
      `INSERT OR REPLACE INTO ${ckpt} (${CHECKPOINT_COLUMNS}, channel_versions) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    upsertBlob: db.prepare(
      `INSERT OR REPLACE INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, value)
       VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    insertWrite: db.prepare(
      `INSERT OR IGNORE INTO checkpoint_writes
       (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, task_path)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    replaceWrite: db.prepare(
      `INSERT OR REPLACE INTO checkpoint_writes
       (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value, task_path)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    deleteThreadCheckpoints: db.prepare(`DELETE FROM ${ckpt} WHERE thread_id = ?`),
    deleteThreadBlobs: db.prepare(`DELETE FROM checkpoint_blobs WHERE thread_id = ?`),
    deleteThreadWrites: db.prepare(`DELETE FROM checkpoint_writes WHERE thread_id = ?`),
    selectNamespaces: db.prepare<[string], { checkpoint_ns: string }>(
      `SELECT DISTINCT checkpoint_ns FROM ${ckpt} WHERE thread_id = ?`,
    ),
    // Everything but the newest `keep` checkpoints of one namespace.
    selectPrunable: db.prepare<[string, string, number], { checkpoint_id: string }>(
      `SELECT checkpoint_id FROM ${ckpt} WHERE thread_id = ? AND checkpoint_ns = ?
       ORDER BY checkpoint_id DESC LIMIT -1 OFFSET ?`,
    ),
    deleteCheckpoint: db.prepare(`DELETE FROM ${ckpt} WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`),
    deleteCheckpointWrites: db.prepare(
      `DELETE FROM checkpoint_writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?`,
    ),
  };
}

/**
 * SQL of one `list` query shape. Filters compare `metadata -> '$."key"'` (SQLite's JSON text of
 * the value) with the JSON of the wanted value, so they apply to JSON-serialized metadata only.
 */
export function listSql(shape: {
  thread: boolean;
  ns: boolean;
  before: boolean;
  filterKeys: number;
  limit: boolean;
}): string {
  const where: string[] = [];
  if (shape.thread) where.push("thread_id = ?");
  if (shape.ns) where.push("checkpoint_ns = ?");
  if (shape.before) where.push("checkpoint_id < ?");
  for (let i = 0; i < shape.filterKeys; i += 1) {
    where.push(`(metadata_type IN ('json', '${COMPACT_JSON_TYPE}') AND (CAST(metadata AS TEXT) -> ?) = ?)`);
  }
  return [
    `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoint_checkpoints`,
    where.length > 0 ? `WHERE ${where.join(" AND ")}` : "",
    "ORDER BY checkpoint_id DESC",
    shape.limit ? "LIMIT ?" : "",
  ].join(" ");
}
