import type Database from "better-sqlite3";
import type { StoredUserPage, UserListQuery } from "../../memory/ports/store.js";
import { SEPARATOR, userRange } from "../shared/user-range.js";
import { LIVE } from "./schema.js";
import { statement } from "./statements.js";

/**
 * One grouped scan of the tenant's user range: each path is cut into the user's label and the rest
 * (`tail`), and the rest says what an item is (`facts␟`, `sessions␟<id>␟messages␟`). Activity is
 * the newest message's time (else the last write). The page and the number of users in all come
 * from the same statement.
 */
const SQL = `
WITH tagged AS (
  SELECT substr(rest, 1, instr(rest, :sep) - 1) AS label, substr(rest, instr(rest, :sep) + 1) AS tail, i.updated_at, i.value
  FROM (SELECT substr(i.ns_path, :labelAt) AS rest, i.updated_at, i.value, i.expires_at FROM store_items i
        WHERE i.ns_path >= :from AND i.ns_path < :to) i
  WHERE ${LIVE.replace("?", ":now")}
), kinds AS (
  SELECT label, updated_at, value, tail,
    tail = 'facts' || :sep AS is_fact,
    (substr(tail, 1, 9) = 'sessions' || :sep AND substr(tail, -10) = :sep || 'messages' || :sep) AS is_message
  FROM tagged
)
SELECT label, coalesce(max(CASE WHEN is_message THEN json_extract(value, '$.createdAt') END), max(updated_at)) AS last_at,
  sum(CASE WHEN is_fact THEN json_extract(value, '$.validTo') IS NULL ELSE 0 END) AS facts,
  sum(is_message) AS messages,
  count(DISTINCT CASE WHEN is_message THEN tail END) AS sessions,
  count(*) OVER () AS total
FROM kinds GROUP BY label ORDER BY last_at DESC, label LIMIT :limit OFFSET :offset`;

interface Row {
  label: string;
  last_at: string;
  facts: number;
  messages: number;
  sessions: number;
  total: number;
}

/** The page of users of `tenant` that `query` asks for (see `StorePort.listUsers`). */
export function listUsers(db: Database.Database, tenant: string, query: UserListQuery, now: number): StoredUserPage {
  const { from, to, labelAt } = userRange(tenant, query);
  const rows = statement(db, SQL).all({ sep: SEPARATOR, labelAt, from, to, now, limit: query.limit, offset: query.offset }) as Row[];
  const users = rows.map((r) => ({ label: r.label, lastActivityAt: r.last_at, sessions: r.sessions, facts: r.facts, messages: r.messages }));
  // Past the last page no row carries the total: count the users alone.
  const total = rows[0]?.total ?? (query.offset > 0 ? countUsers(db, from, to, labelAt, now) : 0);
  return { users, total };
}

function countUsers(db: Database.Database, from: string, to: string, labelAt: number, now: number): number {
  const sql = `SELECT count(DISTINCT substr(substr(i.ns_path, :labelAt), 1, instr(substr(i.ns_path, :labelAt), :sep) - 1)) AS n
    FROM store_items i WHERE i.ns_path >= :from AND i.ns_path < :to AND ${LIVE.replace("?", ":now")}`;
  return (statement(db, sql).get({ sep: SEPARATOR, labelAt, from, to, now }) as { n: number }).n;
}
