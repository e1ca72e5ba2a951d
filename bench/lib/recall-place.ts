import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import type { StorePort } from "../../src/memory/ports/store.js";
import { PostgresStore } from "../../src/storage/postgres/store.js";
import { SqliteStore } from "../../src/storage/sqlite/store.js";

/** A store of `bench/recall-fresh.ts`, and where its data lives (a SQLite file in a temporary directory, or a Postgres schema of its own). */
export type Store = StorePort & { close(): Promise<void> | void; indexSnapshotsSettled?(): Promise<void> };

/** Where one engine's data lives, and stores opened on it (each with its own, empty, recall cache). */
export interface Place {
  /** The SQLite file, or the Postgres schema. */
  where: string;
  open(snapshots: boolean): Promise<Store>;
  snapshotBytes(): Promise<number[]>;
  drop(): Promise<void>;
}

/** `url`: the Postgres server, where a new schema is made for the data. */
export function placeOf(backend: "sqlite" | "postgres", url: string): Place {
  if (backend === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "bench-fresh-"));
    const file = join(dir, "store.db");
    return {
      where: file,
      open: async (snapshots) => SqliteStore.open(file, { indexSnapshots: snapshots }),
      snapshotBytes: async () => {
        const db = new Database(file, { readonly: true });
        try {
          return db.prepare("SELECT length(data) AS n FROM store_index_snapshots").pluck().all() as number[];
        } finally {
          db.close();
        }
      },
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `bench_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
  const admin = async <T>(sql: string): Promise<T[]> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query(sql)).rows as T[];
    } finally {
      await client.end();
    }
  };
  return {
    where: schema,
    open: async (snapshots) => {
      const store = PostgresStore.fromConnString(url, { schema, indexCache: { snapshots } });
      await store.setup();
      return store;
    },
    snapshotBytes: async () => (await admin<{ n: number }>(`SELECT length(data) AS n FROM ${schema}.store_index_snapshots`)).map((row) => Number(row.n)),
    drop: async () => void (await admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)),
  };
}
