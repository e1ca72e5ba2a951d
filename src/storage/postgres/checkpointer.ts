import type pg from "pg";
import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { log } from "../../logger.js";
import { CompactSerializer } from "../shared/checkpoint-serde.js";
import { MIGRATION_LOCK } from "./schema.js";
import { schemaIdentifier } from "./sql.js";


/**
 * LangGraph's `PostgresSaver`, unchanged in what it stores, plus what operating it needs:
 * - `setup()` safe to run from several instances starting at once (an advisory lock around the
 *   saver's migrations; the pool needs two free connections while it runs);
 * - `listThreadIds()` and `pruneThread(threadId, keep)` for garbage collection.
 */
export class PostgresCheckpointer extends PostgresSaver {
  private readonly schemaName: string;

  constructor(
    private readonly db: pg.Pool,
    options: { schema?: string; serde?: SerializerProtocol } = {},
  ) {
    super(db, options.serde ?? new CompactSerializer(), { schema: options.schema ?? "public" });
    this.schemaName = schemaIdentifier(options.schema ?? "public");
  }

  override async setup(): Promise<void> {
    const client = await this.db.connect();
    try {
      await client.query("SELECT pg_advisory_lock(hashtext($1))", [MIGRATION_LOCK]);
      try {
        await super.setup();
      } finally {
        await client.query("SELECT pg_advisory_unlock(hashtext($1))", [MIGRATION_LOCK]);
      }
    } finally {
      client.release();
    }
  }

  /** Every thread with at least one checkpoint. */
  async listThreadIds(): Promise<string[]> {
    const { rows } = await this.db.query<{ thread_id: string }>(`SELECT DISTINCT thread_id FROM ${this.schemaName}.checkpoints`);
    return rows.map((r) => r.thread_id);
  }

  /**
   * Keeps the newest `keep` checkpoints of each namespace of `threadId` (at least one: the newest,
   * the one a next turn starts from, is never removed), deletes the rest with their pending writes,
   * then the channel values no remaining checkpoint refers to; one transaction. With `slack`, a
   * namespace holding at most `keep + slack` checkpoints is left alone (one count query when
   * none holds more). Returns how many checkpoints were removed.
   */
  async pruneThread(threadId: string, keep: number, slack = 0): Promise<number> {
    const kept = Math.max(1, Math.floor(Number.isFinite(keep) ? keep : 1));
    const s = this.schemaName;
    const largest = await this.db.query<{ n: string | null }>(
      `SELECT max(n) AS n FROM (SELECT count(*) AS n FROM ${s}.checkpoints WHERE thread_id = $1 GROUP BY checkpoint_ns) counts`,
      [threadId],
    );
    if (Number(largest.rows[0]?.n ?? 0) <= kept + slack) return 0;
    const client = await this.db.connect();
    try {
      await client.query("BEGIN");
      await client.query(
        `CREATE TEMP TABLE prune_doomed ON COMMIT DROP AS
         SELECT checkpoint_ns, checkpoint_id FROM (
           SELECT checkpoint_ns, checkpoint_id, row_number() OVER (PARTITION BY checkpoint_ns ORDER BY checkpoint_id DESC) AS n
           FROM ${s}.checkpoints WHERE thread_id = $1) ranked
         WHERE n > $2`,
        [threadId, kept],
      );
      await client.query(
        `DELETE FROM ${s}.checkpoint_writes w USING prune_doomed d
         WHERE w.thread_id = $1 AND w.checkpoint_ns = d.checkpoint_ns AND w.checkpoint_id = d.checkpoint_id`,
        [threadId],
      );
      const removed = await client.query(
        `DELETE FROM ${s}.checkpoints c USING prune_doomed d
         WHERE c.thread_id = $1 AND c.checkpoint_ns = d.checkpoint_ns AND c.checkpoint_id = d.checkpoint_id`,
        [threadId],
      );
      if ((removed.rowCount ?? 0) > 0) {
        await client.query(
          `DELETE FROM ${s}.checkpoint_blobs b WHERE b.thread_id = $1 AND NOT EXISTS (
             SELECT 1 FROM ${s}.checkpoints c WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns
               AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version)`,
          [threadId],
        );
      }
      await client.query("COMMIT");
      const count = removed.rowCount ?? 0;
      if (count > 0) log.debug("checkpoint_pruned", { threadId, removed: count, kept });
      return count;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }
}
