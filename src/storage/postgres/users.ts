import type pg from "pg";
import type { StoredUserPage, UserListQuery } from "../../memory/ports/store.js";
import { userRange } from "../shared/user-range.js";
import { live } from "./items.js";

/**
 * One grouped scan of the tenant's user range (`ns_path` under the "C" collation, so a range of
 * the index): the user is the namespace's third label, its fourth says what an item is. Activity is
 * the newest message's time (else the last write). The page and the number of users in all come
 * from the same statement.
 */
const sql = (schema: string) => `
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
  const { rows } = await pool.query<Row>(sql(schema), [from, to, now, query.limit, query.offset]);
  const users = rows.map((r) => ({ label: r.label, lastActivityAt: r.last_at, sessions: Number(r.sessions), facts: Number(r.facts), messages: Number(r.messages) }));
  if (rows[0]) return { users, total: Number(rows[0].total) };
  if (query.offset === 0) return { users, total: 0 };
  // Past the last page no row carries the total: count the users alone.
  const count = await pool.query<{ n: string }>(`SELECT count(DISTINCT namespace[3]) AS n FROM ${schema}.store_items i WHERE i.ns_path >= $1 AND i.ns_path < $2 AND ${live("$3")}`, [from, to, now]);
  return { users, total: Number(count.rows[0]?.n ?? 0) };
}
