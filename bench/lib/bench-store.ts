import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { SqliteStore } from "../../src/storage/sqlite/store.js";
import { PostgresStore } from "../../src/storage/postgres/store.js";
import { setLogLevel } from "../../src/logger.js";
import type { HybridOptions } from "../../src/memory/ranking/hybrid.js";
import type { StorePort } from "../../src/memory/ports/store.js";
import type { RecallCacheBounds } from "../../src/storage/shared/sized-lru.js";

/** The engines the recall benchmarks run on. */
export type BenchBackend = "sqlite" | "postgres";

/** Where the benchmarks' stores live: a temp folder of SQLite files, or fresh schemas in one Postgres database. */
export interface BenchStores {
  backend: BenchBackend;
  /** A fresh, empty store named `name`; `close` ends it and throws its data away. */
  open(name: string, options: { embeddings?: EmbeddingsInterface; hybrid?: HybridOptions; indexCache?: RecallCacheBounds }): Promise<{ store: StorePort; close(): Promise<void> }>;
  /** Removes what is left (the temp folder). */
  dispose(): void;
}

/** `--backend` and `--database-url` as the recall benchmarks read them (Postgres from the flag, else DATABASE_URL, else the local test database). */
export const BACKEND_OPTIONS = {
  backend: { type: "string", default: "sqlite" },
  "database-url": { type: "string" },
} as const;

/** The stores of `backend`; throws on an unknown backend name. */
export function benchStores(backend: string, databaseUrl: string | undefined): BenchStores {
  if (backend === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "bench-sqlite-"));
    return {
      backend,
      open: async (name, options) => {
        const file = join(dir, `${name.replace(/[^\w-]/g, "_")}.db`);
        const store = SqliteStore.open(file, options);
        return {
          store,
          close: async () => {
            store.close();
            rmSync(file, { force: true });
          },
        };
      },
      dispose: () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (backend === "postgres") {
    const url = databaseUrl ?? process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
    setLogLevel("warn"); // each fresh schema logs its migrations
    return {
      backend,
      open: async (_name, options) => {
        const schema = `bench_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
        const store = PostgresStore.fromConnString(url, { ...options, schema });
        await store.setup();
        return {
          store,
          close: async () => {
            await store.close();
            const client = new pg.Client({ connectionString: url });
            await client.connect();
            await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
            await client.end();
          },
        };
      },
      dispose: () => undefined,
    };
  }
  throw new Error(`--backend must be sqlite or postgres, not ${JSON.stringify(backend)}`);
}
