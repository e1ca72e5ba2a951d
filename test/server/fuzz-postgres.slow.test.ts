import { createHash } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADVISORY_LOCK_CLASS } from "../../src/storage/postgres/turn-lock.js";
import { KNOWN, send } from "../support/fuzz-requests.js";
import { fuzzService, json, runGc } from "../support/fuzz-service.js";
import { createTempDatabase } from "../support/postgres.js";
import { freePort, startService, waitFor } from "../support/service-process.js";

/**
 * [slow] The fuzz run of fuzz.slow.test.ts — turns, reads, forgets, search, export and import
 * documents with deep and wide JSON, every Unicode category, edge numbers — against the service on
 * Postgres: two service processes (`npm start`) on one throw-away database take the requests in
 * turn. No 5xx (a NUL or a lone surrogate once answered 500 here), and every 4xx leaves every row
 * of every table of the database as it was. Afterwards a plain turn of another tenant answers 200
 * on each worker and `npm run gc` exits 0. FUZZ_SEED / FUZZ_RUNS override.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20_240_917);
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const KEY_A = "fuzz-pg-key-tenant-a";
const KEY_B = "fuzz-pg-key-tenant-b";

describe("[slow] fuzzing the HTTP API on Postgres", () => {
  let db: Awaited<ReturnType<typeof createTempDatabase>>;
  let probe: pg.Client;
  const workers: { service: ReturnType<typeof startService>; port: number }[] = [];
  let sent = 0;
  const nextPort = () => workers[sent++ % workers.length]!.port;

  /** A digest of every row of every table of the database (rows sorted, so heap order does not count). */
  const stored = async () => {
    const hash = createHash("sha256");
    const tables = await probe.query<{ name: string }>(
      "SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1",
    );
    for (const { name } of tables.rows) {
      const rows = await probe.query<{ row: string }>(`SELECT to_jsonb(t)::text AS row FROM ${name} t`);
      hash.update(`\0${name}\0${rows.rows.map((r) => r.row).sort().join("\n")}`);
    }
    return hash.digest("hex");
  };
  /** Waits until no turn holds its advisory lock in this database. */
  const quiet = async () => {
    const held = "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())";
    while ((await probe.query<{ n: number }>(held, [ADVISORY_LOCK_CLASS])).rows[0]!.n > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  };
  const recentErrors = () => workers.flatMap(({ service }) => service.stdout().split("\n").filter((line) => /"severity":"ERROR"/.test(line)).slice(-3)).join("\n");
  const env = () => ({ MEMORY_BACKEND: "postgres", DATABASE_URL: db.url });

  beforeAll(async () => {
    db = await createTempDatabase();
    for (let i = 0; i < 2; i += 1) {
      const port = await freePort();
      const service = startService({ ...env(), PORT: String(port), API_KEYS: `tenantA:${KEY_A},tenantB:${KEY_B}`, BODY_LIMIT_BYTES: "4096", MAX_PROMPT_CHARS: "1000" });
      workers.push({ service, port });
      // One at a time: the second finds the schema made.
      await waitFor(() => service.output().includes("server.listening") || service.child.exitCode !== null, 45_000);
      expect(service.child.exitCode, service.output()).toBeNull();
    }
    probe = new pg.Client({ connectionString: db.url });
    await probe.connect();
  }, 120_000);

  afterAll(async () => {
    for (const { service } of workers) {
      service.child.kill("SIGTERM");
      await service.exited;
    }
    await probe?.end();
    await db?.drop();
  }, 60_000);

  it("seeds data under the known ids, and the write probe sees a turn's writes", async () => {
    const before = await stored();
    for (const key of [KEY_A, KEY_B]) {
      for (const user of KNOWN.users) {
        for (const session of KNOWN.sessions) {
          const res = await send(nextPort(), json("POST", "/v1/turns", key, { user_id: user, session_id: session, message: "My email is fuzz@example.com and I prefer tea." }));
          expect(res.status, res.text).toBe(200);
        }
      }
    }
    expect(await stored()).not.toBe(before);
  }, 60_000);

  it("answers every generated request without a 5xx or internals, with JSON errors, storing nothing on a 4xx", async () => {
    await fuzzService({ keys: [KEY_A, KEY_B], nextPort, stored, quiet, recentErrors, seed: SEED, runs: RUNS });
  }, 180_000);

  it("serves a plain turn of another tenant on every worker afterwards, and `npm run gc` exits 0", async () => {
    for (const { port } of workers) {
      const res = await send(port, json("POST", "/v1/turns", KEY_B, { user_id: `after-${port}`, session_id: "s", message: "still there?" }));
      expect(res.status, res.text).toBe(200);
    }
    const gc = await runGc(env());
    expect(gc.code, gc.stderr).toBe(0);
  }, 60_000);
});
