import Database from "better-sqlite3";
import type { Operation } from "@langchain/langgraph-checkpoint";
import type { PreparedPut } from "../shared/store-common.js";
import { writeItem } from "./writes.js";
import { writeWhenFree } from "./write-when-free.js";
import type { StoreTtlConfig } from "../shared/ttl.js";

/** Puts in one batch from which the write is made in slices (an import), on a connection of its own. */
export const SLICED_BATCH_PUTS = 256;
/** Longest stretch of synchronous writing between two yields to the event loop. */
const SLICE_MS = 10;

/**
 * A second connection to the store's file that writes large batches of puts in one transaction,
 * yielding to the event loop every few milliseconds: other requests go on meanwhile (reading the
 * last committed state; their writes wait for the lock without blocking, as every write here
 * does), and the batch is still all or nothing. The store's connection sees the commit as another
 * connection's (its index cache catches up by `seq`). Not for in-memory databases.
 */
export class SlicedWriter {
  private side: Database.Database | undefined;

  constructor(private readonly file: string) {}

  /** Whether `db` can have a second connection (a file, not `:memory:`). */
  static supports(db: Database.Database): boolean {
    return !db.memory && db.name !== "" && db.name !== ":memory:";
  }

  /** Writes `operations` (puts and deletes only) in one transaction; nothing of them on failure. */
  async write(operations: readonly Operation[], puts: ReadonlyMap<Operation, PreparedPut>, ttl?: StoreTtlConfig): Promise<void> {
    const db = (this.side ??= this.open());
    await writeWhenFree(db, () => db.exec("BEGIN IMMEDIATE"));
    try {
      let since = performance.now();
      for (const op of operations) {
        writeItem(db, puts.get(op) ?? { op: op as PreparedPut["op"], text: "", terms: "" }, ttl);
        if (performance.now() - since < SLICE_MS) continue;
        await new Promise((resolve) => setImmediate(resolve));
        since = performance.now();
      }
      db.exec("COMMIT");
    } catch (error) {
      if (db.inTransaction) db.exec("ROLLBACK");
      throw error;
    }
  }

  close(): void {
    this.side?.close();
    this.side = undefined;
  }

  private open(): Database.Database {
    const db = new Database(this.file);
    db.pragma("busy_timeout = 5000");
    return db;
  }
}
