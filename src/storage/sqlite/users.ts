import type Database from "better-sqlite3";
import type { StoredUserPage, UserListQuery } from "../../memory/ports/store.js";
import { SEPARATOR, userRange } from "../shared/user-range.js";
import { LIVE } from "./schema.js";
import { statement } from "./statements.js";

/**
 * One scan of the tenant's user range in `ns_path` order (the index's), grouped by namespace first,
 * so that no row is sorted: each namespace gives its item count, last write, newest `createdAt` (a
 * transcript's) and current facts (the facts namespace's); then its path is cut into the user's label
 * and the rest (`tail`), which says what the namespace holds (`facts␟`, `sessions␟<id>␟messages␟`),
 * and the namespaces are summed per user. Activity is the newest message's time (else the last
 * write). The page and the number of users in all come from the same statement. Grouping the items
 * by user directly sorted every item (with its value) in a temporary b-tree: 43 ms for one user with
 * 10,000 messages, against 10 ms this way.
 */
const SQL = `
WITH spaces AS (
  SELECT substr(i.ns_path, :labelAt) AS rest, count(*) AS items, max(i.updated_at) AS written,
    max(CASE WHEN substr(i.ns_path, -10) = :sep || 'messages' || :sep THEN json_extract(i.value, '$.createdAt') END) AS said,
    sum(CASE WHEN substr(i.ns_path, -6) = 'facts' || :sep THEN json_extract(i.value, '$.validTo') IS NULL ELSE 0 END) AS open_facts
  FROM store_items i
  WHERE i.ns_path >= :from AND i.ns_path < :to AND ${LIVE.replace("?", ":now")}
  GROUP BY i.ns_path
), tagged AS (
  SELECT substr(rest, 1, instr(rest, :sep) - 1) AS label, substr(rest, instr(rest, :sep) + 1) AS tail, items, written, said, open_facts FROM spaces
), kinds AS (
  SELECT label, items, written, said, open_facts, tail = 'facts' || :sep AS is_fact,
    (substr(tail, 1, 9) = 'sessions' || :sep AND substr(tail, -10) = :sep || 'messages' || :sep) AS is_message
  FROM tagged
)
SELECT label, coalesce(max(CASE WHEN is_message THEN said END), max(written)) AS last_at,
  sum(CASE WHEN is_fact THEN open_facts ELSE 0 END) AS facts,
  sum(CASE WHEN is_message THEN items ELSE 0 END) AS messages,
  sum(is_message) AS sessions,
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
