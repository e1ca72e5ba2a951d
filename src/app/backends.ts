import fs from "node:fs";
import path from "node:path";
import { InMemoryStore, MemorySaver, type BaseCheckpointSaver, type BaseStore } from "@langchain/langgraph";
import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { MemoryGraphError } from "../errors.js";
import { log } from "../logger.js";

export type BackendKind = "memory" | "sqlite";

export interface BackendOptions {
  backend: BackendKind;
  /** SQLite file holding checkpoints and the long-term store (sqlite backend). */
  sqlitePath?: string;
  embeddings?: EmbeddingsInterface;
}

/** A checkpointer and a store, opened together and closed together. */
export interface Persistence {
  kind: BackendKind;
  checkpointer: BaseCheckpointSaver;
  store: BaseStore;
  /** Checks storage answers (for readiness probes). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens the persistence a backend names. `memory` is for tests (nothing survives the process);
 * `sqlite` keeps checkpoints and the long-term store in one file, so state survives restarts.
 */
export async function openPersistence(options: BackendOptions): Promise<Persistence> {
  if (options.backend === "memory") {
    return {
      kind: "memory",
      checkpointer: new MemorySaver(),
      store: new InMemoryStore(),
      ping: async () => undefined,
      close: async () => undefined,
    };
  }
  if (options.backend === "sqlite") return openSqlite(options.sqlitePath ?? "./data/memory.db", options.embeddings);
  throw new MemoryGraphError("BACKEND_UNKNOWN", `backend: unknown backend ${String(options.backend)}`, { kind: "system", field: "backend" });
}

/** Backends load their drivers on first use, so a process pays only for the one it opens. */
async function openSqlite(file: string, embeddings: EmbeddingsInterface | undefined): Promise<Persistence> {
  const [{ default: Database }, { SqliteCheckpointer }, { SqliteStore }] = await Promise.all([
    import("better-sqlite3"),
    import("../memory/backends/sqlite-checkpointer.js"),
    import("../memory/backends/sqlite-store.js"),
  ]);
  if (file !== ":memory:") fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.pragma("busy_timeout = 5000");
  db.pragma("synchronous = NORMAL");
  const checkpointer = new SqliteCheckpointer(db);
  const store = new SqliteStore(db, { embeddings });
  log.info("persistence_opened", { backend: "sqlite", path: file, vectors: embeddings ? "on" : "off" });
  let closed = false;
  return {
    kind: "sqlite",
    checkpointer,
    store,
    ping: async () => {
      db.prepare("SELECT 1").get();
    },
    close: async () => {
      if (closed) return;
      closed = true;
      db.close();
    },
  };
}
