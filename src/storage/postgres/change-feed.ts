import type pg from "pg";
import { pruneIndexSnapshots, type ChangeRow } from "./index-snapshots.js";

/** More changed rows than this since the last search: drop every cached prefix rather than apply them one by one. */
export const MAX_DELTA = 20_000;

/**
 * The change feed, a SELECT of a snapshot load's ten columns (`AlsoRead`) that is also run alone:
 * the xmin of its statement's snapshot (`X`) and, `since` (an escaped literal) given, every
 * deletion (`D`) and item written (`I`, its `seq` in `xmin`: see `inWriteOrder`) not visible before it, all in one snapshot. The ORDER BY
 * keeps the planner on the written_xid index when statistics lag a bulk write.
 */
export function changeFeed(schema: string, since: string | undefined): string {
  const xmin = `SELECT 'X' AS kind, pg_snapshot_xmin(pg_current_snapshot())::text AS xmin, NULL::text AS id, NULL::text AS ns_path, NULL::text AS to_path,
    NULL::text AS tokens, NULL::text AS label, NULL::text AS speaker, NULL::text AS asks, NULL::bytea AS data`;
  if (since === undefined) return xmin;
  return `${xmin}
    UNION ALL SELECT 'D', NULL, item_id::text, from_path, to_path, NULL, NULL, NULL, NULL, NULL FROM ${schema}.store_deletions WHERE xid >= ${since}::xid8
    UNION ALL (SELECT 'I', seq::text, id::text, ns_path, NULL, tokens, label, speaker, asks::text, NULL FROM ${schema}.store_items
               WHERE written_xid >= ${since}::xid8 ORDER BY written_xid LIMIT ${MAX_DELTA + 1})`;
}

/** A row of `changeFeed` run alone. */
export type FeedRow = Omit<ChangeRow, "kind" | "asks"> & { kind: "X" | "D" | "I"; asks: string | null };

export function changeRowOfFeed(row: FeedRow): ChangeRow {
  return { ...row, kind: row.kind.toLowerCase() as ChangeRow["kind"], asks: row.asks === null ? null : row.asks === "true" };
}

/**
 * Deletes `store_deletions` rows older than a day: every cache has synchronised since, or starts over
 * (`MAX_IDLE_MS`); and, in the same statement, the persisted snapshots stamped at or before the
 * newest of them (what they lack is no longer in the log); then the snapshots of ranges left empty
 * (`pruneIndexSnapshots`). Returns the rows deleted.
 */
export async function pruneDeletions(db: pg.Pool | pg.ClientBase, schema: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `WITH gone AS (DELETE FROM ${schema}.store_deletions WHERE at < now() - interval '1 day' RETURNING xid),
     stale AS (DELETE FROM ${schema}.store_index_snapshots WHERE stamp::text::numeric <= (SELECT max(xid::text::numeric) FROM gone))
     SELECT count(*) AS n FROM gone`,
  );
  return Number(rows[0]?.n ?? 0) + (await pruneIndexSnapshots(db, schema));
}
