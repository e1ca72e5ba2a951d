import type pg from "pg";
import type { StoredTranscript, StoredUserPage, UserListQuery } from "../../memory/ports/store.js";
import { prefixRange } from "../shared/namespace.js";
import { transcriptOf, type TranscriptRow } from "../shared/transcript-row.js";
import { userRange } from "../shared/user-range.js";
import { live } from "./items.js";

// What the store port adds to BaseStore, one statement each: counts, tenants, users, transcripts, clean-up.

/** How many live items are stored at exactly `path` (a namespace's stored path): one index count. */
export async function countItems(pool: pg.Pool, schema: string, path: string): Promise<number> {
  const result = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${schema}.store_items i WHERE i.ns_path = $1 AND ${live("$2")}`, [path, new Date()]);
  return Number(result.rows[0]?.n ?? 0);
}

/** Deletes the vector rows whose item is gone; returns how many. */
export async function deleteOrphanedVectors(pool: pg.Pool, schema: string): Promise<number> {
  const result = await pool.query(`DELETE FROM ${schema}.store_vectors v WHERE NOT EXISTS (SELECT 1 FROM ${schema}.store_items i WHERE i.id = v.item_id)`);
  return result.rowCount ?? 0;
}

/** The distinct first labels (tenants) of stored namespaces. */
export async function listTenantLabels(pool: pg.Pool, schema: string): Promise<string[]> {
  const { rows } = await pool.query<{ tenant: string }>(`SELECT DISTINCT namespace[1] AS tenant FROM ${schema}.store_items`);
  return rows.map((r) => r.tenant);
}

/**
 * One grouped scan of the prefix's range (`ns_path` under the "C" collation, so a range of the
 * index), keeping the namespaces one level below the prefix that end in "messages". The first
 * message and first user message are the least "createdAt␟key" under "C" (byte order, as SQLite
 * compares). No message is returned.
 */
const sql = (schema: string) => `
SELECT namespace[$4] AS label, count(*) AS messages,
  min((value->>'createdAt') COLLATE "C") AS first_at, max((value->>'createdAt') COLLATE "C") AS last_at,
  min(((value->>'createdAt') || chr(31) || key) COLLATE "C") AS first,
  min(((value->>'createdAt') || chr(31) || key) COLLATE "C") FILTER (WHERE value->>'role' = 'user') AS first_user
FROM ${schema}.store_items i
WHERE i.ns_path >= $1 AND i.ns_path < $2 AND ${live("$3")} AND cardinality(namespace) = $4 + 1 AND namespace[$4 + 1] = 'messages'
GROUP BY ns_path, namespace[$4]`;

/** The transcripts under `prefix` (see `StorePort.listTranscripts`). */
export async function listTranscripts(pool: pg.Pool, schema: string, prefix: string[]): Promise<StoredTranscript[]> {
  const { from, to } = prefixRange(prefix);
  const { rows } = await pool.query<TranscriptRow & { label: string }>(sql(schema), [from, to, new Date(), prefix.length + 1]);
  return rows.map((row) => transcriptOf(row.label, row));
}

/**
 * One grouped scan of the tenant's user range (`ns_path` under the "C" collation, so a range of
 * the index): the user is the namespace's third label, its fourth says what an item is. Activity is
 * the newest message's time (else the last write). The page and the number of users in all come
 * from the same statement.
 */
const usersSql = (schema: string) => `
SELECT namespace[3] AS label,
  coalesce(max(value->>'createdAt') FILTER (WHERE cardinality(namespace) = 6 AND namespace[4] = 'sessions' AND namespace[6] = 'messages'),
    to_char(max(updated_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')) COLLATE "C" AS last_at,
  count(*) FILTER (WHERE cardinality(namespace) = 4 AND namespace[4] = 'facts' AND value->>'validTo' IS NULL) AS facts,
  count(*) FILTER (WHERE cardinality(namespace) = 6 AND namespace[4] = 'sessions' AND namespace[6] = 'messages') AS messages,
  count(DISTINCT namespace[5]) FILTER (WHERE cardinality(namespace) = 6 AND namespace[4] = 'sessions' AND namespace[6] = 'messages') AS sessions,
  count(*) OVER () AS total
FROM ${schema}.store_items i
WHERE i.ns_path >= $1 AND i.ns_path < $2 AND ${live("$3")}
GROUP BY namespace[3] ORDER BY last_at DESC, namespace[3] COLLATE "C" LIMIT $4 OFFSET $5`;

interface Row {
  label: string;
  last_at: string;
  facts: string;
  messages: string;
  sessions: string;
  total: string;
}

/** The page of users of `tenant` that `query` asks for (see `StorePort.listUsers`). */
export async function listUsers(pool: pg.Pool, schema: string, tenant: string, query: UserListQuery): Promise<StoredUserPage> {
  const { from, to } = userRange(tenant, query);
  const now = new Date();
  const { rows } = await pool.query<Row>(usersSql(schema), [from, to, now, query.limit, query.offset]);
  const users = rows.map((r) => ({ label: r.label, lastActivityAt: r.last_at, sessions: Number(r.sessions), facts: Number(r.facts), messages: Number(r.messages) }));
  if (rows[0]) return { users, total: Number(rows[0].total) };
  if (query.offset === 0) return { users, total: 0 };
  // Past the last page no row carries the total: count the users alone.
  const count = await pool.query<{ n: string }>(`SELECT count(DISTINCT namespace[3]) AS n FROM ${schema}.store_items i WHERE i.ns_path >= $1 AND i.ns_path < $2 AND ${live("$3")}`, [from, to, now]);
  return { users, total: Number(count.rows[0]?.n ?? 0) };
}
