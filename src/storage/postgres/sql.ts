import type pg from "pg";
import { MemoryGraphError } from "../../errors.js";

/**
 * Collects positional parameters while SQL text is assembled: `add(value)` returns the
 * placeholder (`$1`, `$2`, …) that stands for it in the statement.
 */
export class Params {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * A schema name as a quoted SQL identifier. Only lower-case letters, digits and underscores are
 * accepted (so the name never needs escaping and means the same quoted or not); throws
 * `INVALID_INPUT` otherwise.
 */
export function schemaIdentifier(name: string): string {
  if (!IDENTIFIER.test(name)) {
    throw new MemoryGraphError("INVALID_INPUT", `schema: ${JSON.stringify(name)} must match ${IDENTIFIER.source}`, {
      kind: "user",
      field: "schema",
    });
  }
  return `"${name}"`;
}

/** A vector in pgvector's text form ("[0.1,0.2]"). */
export function vectorLiteral(vector: readonly number[]): string {
  return `[${vector.map((x) => (Number.isFinite(x) ? x : 0)).join(",")}]`;
}

/**
 * The session settings of every connection the stores open (pg's `options`): JIT compilation and
 * parallel query off. The planner prices the store's short queries high, and both spend far more
 * than the query:
 * - JIT: `searchRecent`'s recursive skip scan over a user's namespaces is priced at about 577,000
 *   for a query that runs in under a millisecond, past Postgres' default `jit_above_cost` (100,000),
 *   so each was JIT-compiled: about 250 ms of server CPU per call (EXPLAIN ANALYZE on bench:load's
 *   database). Under bench:load at 8 turns/s that CPU starved every other query until storage
 *   calls passed STORAGE_TIMEOUT_MS.
 * - Parallel workers: the recall cache's change feed (`written_xid >= $1`) is estimated at a third
 *   of the table (xid8 has no statistics a range can use), so it was planned with a parallel worker,
 *   whose start took 15–20 ms of a query that finds nothing new in under 1 ms (EXPLAIN ANALYZE,
 *   40 LongMemEval users: 24.1 → 0.6 ms); it was most of a fresh instance's first recall.
 * A DATABASE_URL that sets `options` itself keeps its own.
 */
export const CONNECTION_OPTIONS = "-c jit=off -c max_parallel_workers_per_gather=0";

/**
 * The options of every pool the stores open: `CONNECTION_OPTIONS`, and one connection kept open
 * while idle (`min`). pg closes a connection idle for `idleTimeoutMillis` (10 s by default); with
 * none left, the next query opens one (TCP, start-up, authentication: 9.5 ms p50 on the shared
 * development machine without TLS, more with TLS and SCRAM to a managed server), and a user's
 * first recall after a quiet spell paid it: 33 against 21 ms p50, 60 LongMemEval users alternated
 * (`docs/recall.md`). Idle connections do not keep the process alive (`allowExitOnIdle`), as the
 * 10 s timer did not for longer than 10 s.
 */
export function poolConfig(connectionString: string, max: number): pg.PoolConfig {
  return { connectionString, max, options: CONNECTION_OPTIONS, min: 1, allowExitOnIdle: true };
}
