import { performance } from "node:perf_hooks";
import type pg from "pg";
import { namespaces } from "../../src/memory/namespaces.js";
import { selectBinary } from "../../src/storage/postgres/binary-copy.js";
import { ITEM_COLUMNS } from "../../src/storage/postgres/items.js";
import { prefixRange, pathOf } from "../../src/storage/shared/namespace.js";
import { percentile, round, timeStats } from "./metrics.js";

/**
 * The reads a first recall on Postgres cannot do without, and nothing else, as a floor for its time:
 * the user's snapshot bytes (binary COPY, as the load reads them, left undecoded) and the rows of
 * its hits (`keys`, the first search's ranked keys), two round trips on `db`, whose process and
 * connection should be as warm as the store's. Returns their ms: what a first recall would take if
 * restoring, applying the rows written since, ranking and rendering were free. The hits' ids are
 * looked up before the clock starts.
 */
export async function readFloor(db: pg.ClientBase, schema: string, userId: string, keys: readonly string[]): Promise<number> {
  const { from, to } = prefixRange(namespaces.sessions({ tenantId: "bench", userId }));
  const { rows } = await db.query<{ id: string }>(`SELECT id::text FROM ${schema}.store_items WHERE ns_path >= $1 AND ns_path < $2 AND key = ANY($3)`, [
    from,
    to,
    keys,
  ]);
  const ids = rows.map((row) => row.id);
  const started = performance.now();
  const snapshot = await selectBinary(
    db,
    `SELECT stamp::text, data FROM ${schema}.store_index_snapshots WHERE from_path = ${db.escapeLiteral(from)} AND to_path = ${db.escapeLiteral(to)}`,
  );
  await db.query(`SELECT ${ITEM_COLUMNS} FROM ${schema}.store_items i WHERE i.id = ANY($1::bigint[])`, [ids]);
  const ms = performance.now() - started;
  if (snapshot.length !== 1) throw new Error(`read floor: ${snapshot.length} snapshots under ${pathOf(namespaces.sessions({ tenantId: "bench", userId }))}`);
  return ms;
}

/**
 * From the warmed processes' replies (`FreshReply`, Postgres), per user beside its first search: a
 * second search (the index cached, what a warm instance pays) and the reads a first recall cannot
 * do without (`readFloor`): how much of the first recall is the design's floor on this machine, and
 * how much is decoding, applying and ranking.
 */
export function floorReport(replies: readonly { ms: number[]; cachedMs?: number[]; floorMs?: number[] }[]) {
  const first = replies.flatMap((reply) => reply.ms);
  const cached = replies.flatMap((reply) => reply.cachedMs ?? []);
  const floor = replies.flatMap((reply) => reply.floorMs ?? []);
  if (floor.length === 0) return {};
  const overFloor = first.map((ms, i) => ms - (floor[i] ?? 0));
  return {
    fresh_process_warmed_beside: { cached_second_search: timeStats(cached), read_floor: timeStats(floor), first_minus_floor: timeStats(overFloor) },
    p95_ratio_first_over_read_floor: round(percentile(first, 95) / percentile(floor, 95), 3),
  };
}
