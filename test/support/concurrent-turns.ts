/**
 * One process of the concurrency test: opens the Postgres backend on `schema` (PostgresSaver +
 * PostgresStore), waits until `startAt` (epoch ms) so that every process starts together, then
 * sends `turns` turns to one session all at once, each through the cross-process turn lock.
 * Prints {"done": n} on stdout. Usage: tsx test/support/concurrent-turns.ts <schema> <tag> <turns> <startAt>
 */
import pg from "pg";
import { PostgresCheckpointer } from "../../src/storage/postgres/checkpointer.js";
import { createMemoryGraph } from "../../src/app/create-memory-graph.js";
import { postgresTurnLock } from "../../src/storage/postgres/turn-lock.js";
import { setLogLevel } from "../../src/logger.js";
import { PostgresStore } from "../../src/storage/postgres/store.js";

export const SCOPE = { tenantId: "acme", userId: "u1", sessionId: "double-text" };

setLogLevel("silent");
const [schema = "", tag = "p", turns = "25", startAt = "0"] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test", max: 8 });
const checkpointer = new PostgresCheckpointer(pool, { schema });
const store = new PostgresStore(pool, { schema });
await Promise.all([checkpointer.setup(), store.setup()]);
// TURN_LOCK=none shows what the lock prevents (the test must then fail). The graph holds its lock
// through the turn's upkeep (a summary after the reply), so the lock is the graph's, not a wrapper.
const turnLock = process.env.TURN_LOCK === "none" ? { run: <T>(_: string, work: () => Promise<T>) => work() } : postgresTurnLock(pool);
const graph = await createMemoryGraph({ persistence: { checkpointer, store, turnLock }, chatModel: null });

await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(startAt) - Date.now())));
const results = await Promise.all(
  Array.from({ length: Number(turns) }, (_, i) =>
    graph.runTurn({ ...SCOPE, message: `question ${tag}-${i}` }),
  ),
);
process.stdout.write(JSON.stringify({ done: results.filter((r) => r.status === "OK").length }));
await graph.close();
await pool.end();
