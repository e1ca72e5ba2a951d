import type Database from "better-sqlite3";
import { pathOf, prefixRange } from "../shared/namespace.js";
import { recordTraits } from "../../memory/ranking/document-text.js";
import { columnsOfTraits } from "../../memory/ranking/index-source.js";
import { encodeVector } from "../shared/vector-codec.js";
import { expiresAtOf, type StoreTtlConfig } from "../shared/ttl.js";
import type { IndexedWrite } from "./index-cache.js";
import { dropSnapshotsCovering, dropSnapshotsOverlapping } from "./index-snapshots.js";
import { statement } from "./statements.js";
import { writeWhenFree } from "./write-when-free.js";

/** A put with its indexed text, the `recordTerms()` terms of that text (space-joined) and, when embedded, its vector. */
import { ttlMinutesOf, type PreparedPut } from "../shared/store-common.js";

/**
 * Applies one put inside the caller's transaction: replaces the item's full-text row and vector,
 * then upserts the item (keeping `created_at`, setting `updated_at`, a fresh `seq` and its trait columns), or
 * deletes all three when the value is null. An empty `terms` leaves the item out of full-text search.
 * The item's TTL is the put's `ttl`, else the store's `defaultTtl` (see `ttlMinutesOf`), counted from now.
 * Returns what the in-process index cache must learn (undefined when nothing changed).
 */
export function writeItem(db: Database.Database, { op, terms, traits, vector }: PreparedPut, ttl?: StoreTtlConfig): IndexedWrite | undefined {
  const path = pathOf(op.namespace);
  const existing = statement(db, "SELECT id FROM store_items WHERE ns_path = ? AND key = ?").get(path, op.key) as
    | { id: number }
    | undefined;
  if (existing) {
    statement(db, "DELETE FROM store_fts WHERE rowid = ?").run(existing.id);
    statement(db, "DELETE FROM store_vectors WHERE item_id = ?").run(existing.id);
    // A persisted recall index holding its old text goes with it.
    dropSnapshotsCovering(db, [path]);
  }
  if (op.value === null) {
    if (!existing) return undefined;
    statement(db, "DELETE FROM store_items WHERE id = ?").run(existing.id);
    return { id: existing.id, path, terms: null };
  }
  const at = Date.now();
  const now = new Date(at).toISOString();
  const written = traits ?? recordTraits(op.value);
  const columns = columnsOfTraits(written);
  const ttlMinutes = ttlMinutesOf(op, ttl);
  const { id } = statement(
    db,
    `INSERT INTO store_items (ns_path, namespace, key, value, created_at, updated_at, seq, label, speaker, asks, ttl_minutes, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, (SELECT IFNULL(MAX(seq), 0) + 1 FROM store_items), ?, ?, ?, ?, ?)
       ON CONFLICT (ns_path, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at, seq = excluded.seq,
         label = excluded.label, speaker = excluded.speaker, asks = excluded.asks, ttl_minutes = excluded.ttl_minutes, expires_at = excluded.expires_at
       RETURNING id`,
  ).get(
    path,
    JSON.stringify(op.namespace),
    op.key,
    JSON.stringify(op.value),
    now,
    now,
    columns.label,
    columns.speaker,
    columns.asks ? 1 : 0,
    ttlMinutes,
    expiresAtOf(ttlMinutes, at),
  ) as { id: number };
  if (terms !== "") statement(db, "INSERT INTO store_fts (rowid, terms) VALUES (?, ?)").run(id, terms);
  if (vector) {
    statement(db, "INSERT INTO store_vectors (item_id, dims, vector) VALUES (?, ?, ?)").run(id, vector.length, encodeVector(vector));
  }
  return { id, path, terms: terms === "" ? null : terms.split(" "), traits: written };
}

/**
 * Deletes every item under `prefix` with its full-text row, vector and the persisted recall indexes overlapping it, in one write transaction
 * taken without blocking the event loop (see `writeWhenFree`); returns the item count.
 */
export function deletePrefix(db: Database.Database, prefix: readonly string[]): Promise<number> {
  const { from, to } = prefixRange(prefix);
  const ids = "SELECT id FROM store_items WHERE ns_path >= ? AND ns_path < ?";
  return writeWhenFree(db, () =>
    db.transaction(() => {
      db.prepare(`DELETE FROM store_fts WHERE rowid IN (${ids})`).run(from, to);
      db.prepare(`DELETE FROM store_vectors WHERE item_id IN (${ids})`).run(from, to);
      dropSnapshotsOverlapping(db, from, to);
      return db.prepare("DELETE FROM store_items WHERE ns_path >= ? AND ns_path < ?").run(from, to).changes;
    }).immediate(),
  );
}

/** Deletes full-text and vector rows whose item is gone, in one write transaction (see `deletePrefix`); returns how many. */
export function deleteOrphanedIndexRows(db: Database.Database): Promise<number> {
  return writeWhenFree(db, () =>
    db.transaction(
      () =>
        db.prepare("DELETE FROM store_fts WHERE rowid NOT IN (SELECT id FROM store_items)").run().changes +
        db.prepare("DELETE FROM store_vectors WHERE item_id NOT IN (SELECT id FROM store_items)").run().changes,
    ).immediate(),
  );
}

/**
 * Deletes every item whose TTL has run out by `now` (epoch milliseconds), with its full-text row,
 * vector and the persisted recall indexes holding it, in one write transaction (see `deletePrefix`); returns the item count. Reads only the
 * expiry index, which holds the items that have a TTL.
 */
export function sweepExpired(db: Database.Database, now: number): Promise<number> {
  const ids = "SELECT id FROM store_items WHERE expires_at IS NOT NULL AND expires_at <= ?";
  return writeWhenFree(db, () =>
    db.transaction(() => {
      statement(db, `DELETE FROM store_fts WHERE rowid IN (${ids})`).run(now);
      statement(db, `DELETE FROM store_vectors WHERE item_id IN (${ids})`).run(now);
      const paths = statement(db, "SELECT DISTINCT ns_path FROM store_items WHERE expires_at IS NOT NULL AND expires_at <= ?").pluck().all(now) as string[];
      dropSnapshotsCovering(db, paths);
      return statement(db, "DELETE FROM store_items WHERE expires_at IS NOT NULL AND expires_at <= ?").run(now).changes;
    }).immediate(),
  );
}

/**
 * Pushes back the expiry of the items `ids` that have a TTL and have not expired: each by its own
 * TTL, from `now`. One statement, written when the lock is free; `updated_at` and `seq` stay (a
 * read is not a write of the item).
 */
export function refreshExpiry(db: Database.Database, ids: readonly number[], now: number): Promise<void> {
  return writeWhenFree(db, () => {
    statement(
      db,
      `UPDATE store_items SET expires_at = ? + CAST(ttl_minutes * 60000 AS INTEGER)
       WHERE id IN (SELECT value FROM json_each(?)) AND ttl_minutes IS NOT NULL AND expires_at > ?`,
    ).run(now, JSON.stringify(ids), now);
  });
}
