import type Database from "better-sqlite3";

const caches = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/**
 * The prepared statement of `sql` on `db`, compiled once per connection and reused (better-sqlite3
 * statements are reusable; compiling one costs more than running a small query).
 */
export function statement(db: Database.Database, sql: string): Database.Statement {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map<string, Database.Statement>()));
  let prepared = cache.get(sql);
  if (!prepared) {
    prepared = db.prepare(sql);
    // Statements with variable-length IN lists differ per call; keep the cache bounded.
    if (cache.size >= 256) cache.clear();
    cache.set(sql, prepared);
  }
  return prepared;
}
