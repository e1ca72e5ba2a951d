import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { promisify } from "node:util";
import pg from "pg";
import { PostgresStore } from "../../src/storage/postgres/store.js";
import { loadTranscript } from "../../src/memory/transcript.js";
import type { TranscriptRecord } from "../../src/memory/records.js";

const run = promisify(execFile);
const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const SCOPE = { tenantId: "acme", userId: "u1", sessionId: "double-text" };
const schema = `mg_conc_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
let pool: pg.Pool;

beforeAll(() => {
  pool = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
});
afterAll(async () => {
  await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await pool.end();
});

/** The messages from the session's root to its only leaf, following parent ids. */
function chainOf(records: readonly TranscriptRecord[]): TranscriptRecord[] {
  const byId = new Map(records.map((r) => [r.id, r]));
  const parents = new Set(records.map((r) => r.parentId));
  const leaves = records.filter((r) => !parents.has(r.id));
  expect(leaves).toHaveLength(1);
  const chain: TranscriptRecord[] = [];
  for (let at = leaves[0]; at; at = at.parentId ? byId.get(at.parentId) : undefined) chain.unshift(at);
  return chain;
}

describe("one thread, one writer, across processes", () => {
  it("2 processes × 25 concurrent turns on one Postgres session keep 50 questions, each answered right after it", async () => {
    // Both processes set the schema up; the store's migrations and PostgresSaver's must not race.
    const startAt = Date.now() + 4000;
    const child = (tag: string) =>
      run("npx", ["tsx", "test/support/concurrent-turns.ts", schema, tag, "25", String(startAt)], {
        env: { ...process.env, DATABASE_URL },
        timeout: 150_000,
      });
    const outputs = await Promise.all([child("a"), child("b")]);
    expect(outputs.map((o) => JSON.parse(o.stdout) as { done: number })).toEqual([{ done: 25 }, { done: 25 }]);

    const records = await loadTranscript(new PostgresStore(pool, { schema }), SCOPE);
    expect(records.filter((r) => r.role === "user")).toHaveLength(50);
    expect(records.filter((r) => r.role === "assistant")).toHaveLength(50);
    const chain = chainOf(records);
    expect(chain).toHaveLength(100);
    expect(chain[0]?.parentId).toBeNull();
    chain.forEach((record, i) => expect(record.role).toBe(i % 2 === 0 ? "user" : "assistant"));
    const questions = chain.filter((r) => r.role === "user").map((r) => r.text).sort();
    const expected = ["a", "b"].flatMap((tag) => Array.from({ length: 25 }, (_, i) => `question ${tag}-${i}`)).sort();
    expect(questions).toEqual(expected);
  }, 180_000);
});
