import type pg from "pg";
import { log } from "../../logger.js";
import { recordTraits } from "../../memory/ranking/document-text.js";
import { recordTerms } from "../../memory/ranking/event-marker.js";
import { indexTextOf } from "../shared/store-common.js";

/**
 * The Postgres store's tables, in the store's own schema (`s` below):
 * - `store_items`: one row per (namespace, key). `ns_path` is the namespace in `pathOf` form under
 *   the "C" collation, so a namespace prefix is an index range; `seq` grows with every write and
 *   breaks `updated_at` ties; `terms` was `to_tsvector('simple', …)` over our `tokenize()` output
 *   with a GIN index, until migration 5 dropped both (ranking reads `tokens`, below).
 * - `store_vectors` (only with pgvector): one embedding per item, deleted with it, in half
 *   precision (`halfvec`, pgvector ≥ 0.7: half the bytes of `vector`; migration 3 converts the
 *   rows written before it); an HNSW index per embedding length is made on first use
 *   (`ensureVectorIndex`).
 * - since migration 4, each item's `tokens` (the `recordTerms()` terms, space-joined, as the recall
 *   index reads them), its traits `label`, `speaker`, `asks` (`recordTraits`), and `written_xid`,
 *   the transaction that last wrote it; `store_deletions` logs deletions (an item id, or a path
 *   range) with their transaction, so a process's recall index learns what others deleted.
 * - since migration 6, each item's `ttl_minutes` (LangGraph's `ttl`, NULL for none) and `expires_at`
 *   (when it runs out, pushed back by a refreshing read), indexed where set.
 * - since migration 7, `store_index_snapshots`: a recall index per search prefix range, as bytes,
 *   stamped with the change position it is current to (`index-snapshots.ts`), and an index of
 *   items by (`ns_path`, `written_xid`) that reads a range's changes since a stamp.
 * - `store_migrations`: the migrations applied, so `migrate` is idempotent and additive.
 */
interface Migration {
  version: number;
  needsVector: boolean;
  sql: (s: string) => string;
  /** Whether the rows written before it need their recall columns filled (`fillRecallColumns`). */
  fill?: boolean;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    needsVector: false,
    sql: (s) => `
      CREATE SEQUENCE IF NOT EXISTS ${s}.store_items_seq;
      CREATE TABLE IF NOT EXISTS ${s}.store_items (
        id bigserial PRIMARY KEY,
        ns_path text COLLATE "C" NOT NULL,
        namespace text[] NOT NULL,
        key text NOT NULL,
        value jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        seq bigint NOT NULL DEFAULT nextval('${s}.store_items_seq'),
        terms tsvector,
        UNIQUE (ns_path, key)
      );
      CREATE INDEX IF NOT EXISTS store_items_ns_recent ON ${s}.store_items (ns_path, updated_at DESC, seq DESC);
      CREATE INDEX IF NOT EXISTS store_items_terms ON ${s}.store_items USING gin (terms);`,
  },
  {
    version: 2,
    needsVector: true,
    sql: (s) => `
      CREATE TABLE IF NOT EXISTS ${s}.store_vectors (
        item_id bigint PRIMARY KEY REFERENCES ${s}.store_items (id) ON DELETE CASCADE,
        dims integer NOT NULL,
        embedding vector NOT NULL
      );`,
  },
  {
    version: 3,
    needsVector: true,
    // Half precision: the indexes over the old type go (ensureVectorIndex makes new ones), and the
    // rows written as vector are converted in place.
    sql: (s) => `
      DO $$ DECLARE r record; BEGIN
        FOR r IN SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                 WHERE i.indrelid = '${s}.store_vectors'::regclass AND c.relname LIKE 'store_vectors_hnsw_%' LOOP
          EXECUTE format('DROP INDEX %s.%I', '${s}', r.relname);
        END LOOP;
      END $$;
      ALTER TABLE ${s}.store_vectors ALTER COLUMN embedding TYPE halfvec USING embedding::halfvec;`,
  },
  {
    version: 4,
    needsVector: false,
    // What the in-process recall index is built from, in plain columns (filled for older rows by
    // `fillRecallColumns`), and what lets every process keep its index current: the transaction
    // that last wrote each item, and a log of deletions (which leave no row to read back).
    sql: (s) => `
      ALTER TABLE ${s}.store_items
        ADD COLUMN IF NOT EXISTS tokens text,
        ADD COLUMN IF NOT EXISTS label text,
        ADD COLUMN IF NOT EXISTS speaker text,
        ADD COLUMN IF NOT EXISTS asks boolean NOT NULL DEFAULT false,
        ADD COLUMN IF NOT EXISTS written_xid xid8 NOT NULL DEFAULT pg_current_xact_id();
      CREATE INDEX IF NOT EXISTS store_items_written ON ${s}.store_items (written_xid);
      CREATE TABLE IF NOT EXISTS ${s}.store_deletions (
        xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
        at timestamptz NOT NULL DEFAULT now(),
        item_id bigint,
        from_path text COLLATE "C",
        to_path text COLLATE "C"
      );
      CREATE INDEX IF NOT EXISTS store_deletions_xid ON ${s}.store_deletions (xid);`,
    fill: true,
  },
  {
    version: 5,
    needsVector: false,
    // Ranking reads `tokens` in process since migration 4: the tsvector and its GIN index only cost writes.
    sql: (s) => `
      DROP INDEX IF EXISTS ${s}.store_items_terms;
      ALTER TABLE ${s}.store_items DROP COLUMN IF EXISTS terms;`,
  },
  {
    version: 6,
    needsVector: false,
    // Time to live (LangGraph's store TTL): NULL for the rows written before it, which never expire.
    sql: (s) => `
      ALTER TABLE ${s}.store_items
        ADD COLUMN IF NOT EXISTS ttl_minutes double precision,
        ADD COLUMN IF NOT EXISTS expires_at timestamptz;
      CREATE INDEX IF NOT EXISTS store_items_expiry ON ${s}.store_items (expires_at) WHERE expires_at IS NOT NULL;`,
  },
  {
    version: 7,
    needsVector: false,
    // Persisted recall indexes (see index-snapshots.ts), stored as they are (no compression: read
    // whole on a fresh process's first search), and what reads the changes of one range since a
    // stamp without visiting its rows.
    sql: (s) => `
      CREATE TABLE IF NOT EXISTS ${s}.store_index_snapshots (
        from_path text COLLATE "C" NOT NULL,
        to_path text COLLATE "C" NOT NULL,
        stamp xid8 NOT NULL,
        items integer NOT NULL,
        written_at timestamptz NOT NULL DEFAULT now(),
        data bytea NOT NULL,
        PRIMARY KEY (from_path, to_path)
      );
      ALTER TABLE ${s}.store_index_snapshots ALTER COLUMN data SET STORAGE EXTERNAL;
      CREATE INDEX IF NOT EXISTS store_items_ns_written ON ${s}.store_items (ns_path, written_xid);`,
  },
];

/**
 * Serialises every migration of memory-graph (store and checkpointer) among all processes sharing
 * the database: both create schemas, and concurrent `CREATE … IF NOT EXISTS` can collide.
 */
export const MIGRATION_LOCK = "memory_graph.migrate";

/** Whether the server offers pgvector (installed in this database or installable). */
async function vectorAvailable(client: pg.PoolClient): Promise<boolean> {
  const { rows } = await client.query<{ n: string }>("SELECT count(*) AS n FROM pg_available_extensions WHERE name = 'vector'");
  return rows[0]?.n === "1";
}

/** Whether the enabled pgvector stores half precision (`halfvec`, pgvector 0.7 and later). */
async function halfPrecisionAvailable(client: pg.PoolClient): Promise<boolean> {
  const { rows } = await client.query<{ v: string }>("SELECT extversion AS v FROM pg_extension WHERE extname = 'vector'");
  const [major = 0, minor = 0] = (rows[0]?.v ?? "0").split(".").map(Number);
  return major > 0 || minor >= 7;
}

/**
 * Creates or migrates the store's schema; idempotent and safe to run from several processes at
 * once. With `wantVectors`, enables pgvector when the server offers it. Returns whether vectors
 * are in use; when they are wanted but pgvector is missing, older than 0.7 or cannot be enabled,
 * the store is lexical only (logged).
 */
export async function migrate(pool: pg.Pool, schema: string, wantVectors: boolean, indexFields?: readonly string[]): Promise<{ vectors: boolean }> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [MIGRATION_LOCK]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${schema}.store_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
    let vectors = wantVectors && (await vectorAvailable(client));
    if (vectors) {
      await client.query("SAVEPOINT vector_extension");
      try {
        await client.query("CREATE EXTENSION IF NOT EXISTS vector");
      } catch (error) {
        await client.query("ROLLBACK TO SAVEPOINT vector_extension");
        log.warn("store.vector_extension_failed", { error: (error as Error).message });
        vectors = false;
      }
    }
    if (vectors && !(await halfPrecisionAvailable(client))) {
      log.warn("store.vector_extension_too_old", { needs: "pgvector 0.7 or later (halfvec)" });
      vectors = false;
    }
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${schema}.store_migrations`);
    const applied = new Set(rows.map((r) => r.version));
    for (const migration of MIGRATIONS) {
      if (applied.has(migration.version) || (migration.needsVector && !vectors)) continue;
      await client.query(migration.sql(schema));
      if (migration.fill) await fillRecallColumns(client, schema, indexFields);
      await client.query(`INSERT INTO ${schema}.store_migrations (version) VALUES ($1)`, [migration.version]);
      log.info("store.migrated", { schema, version: migration.version });
    }
    await client.query("COMMIT");
    return { vectors };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Makes the HNSW (cosine) index for embeddings of length `dims`, a partial index over the rows of
 * that length, when missing. pgvector indexes need a fixed length; one index per length lets a
 * change of embedding model coexist with old vectors.
 */
export async function ensureVectorIndex(pool: pg.Pool, schema: string, dims: number): Promise<void> {
  if (!Number.isInteger(dims) || dims < 1 || dims > 4000) return; // HNSW indexes at most 4,000 halfvec dimensions.
  try {
    await pool.query(
      `CREATE INDEX IF NOT EXISTS store_vectors_hnsw_${dims} ON ${schema}.store_vectors
       USING hnsw ((embedding::halfvec(${dims})) halfvec_cosine_ops) WHERE dims = ${dims}`,
    );
  } catch (error) {
    // Another process created it at the same moment.
    const code = (error as { code?: string }).code;
    if (code !== "23505" && code !== "42P07") throw error;
  }
}

/**
 * Fills `tokens`, `label`, `speaker` and `asks` of the rows written before migration 4, computed
 * as a write computes them now (`indexTextOf` with the store's `indexFields`, `recordTerms`,
 * `recordTraits`), a thousand rows at a time inside the migration's transaction. Rows that were not
 * indexed (NULL `terms`) keep NULL `tokens`.
 */
async function fillRecallColumns(client: pg.PoolClient, schema: string, indexFields: readonly string[] | undefined): Promise<void> {
  let last = "0";
  for (;;) {
    const { rows } = await client.query<{ id: string; value: Record<string, unknown>; indexed: boolean }>(
      `SELECT id, value, terms IS NOT NULL AS indexed FROM ${schema}.store_items WHERE id > $1 ORDER BY id LIMIT 1000`,
      [last],
    );
    if (rows.length === 0) return;
    const columns = rows.map((row) => {
      const traits = recordTraits(row.value);
      const tokens = row.indexed ? recordTerms(row.value, indexTextOf(row.value, indexFields?.slice())).join(" ") : "";
      return { tokens: tokens === "" ? null : tokens, label: traits.label ?? null, speaker: traits.speaker ?? null, asks: traits.asks === true };
    });
    await client.query(
      `UPDATE ${schema}.store_items i SET tokens = u.tokens, label = u.label, speaker = u.speaker, asks = u.asks
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::boolean[]) AS u(id, tokens, label, speaker, asks) WHERE i.id = u.id`,
      [rows.map((r) => r.id), columns.map((c) => c.tokens), columns.map((c) => c.label), columns.map((c) => c.speaker), columns.map((c) => c.asks)],
    );
    last = rows.at(-1)?.id ?? last;
  }
}
