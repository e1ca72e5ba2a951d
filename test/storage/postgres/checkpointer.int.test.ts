import { randomUUID } from "node:crypto";
import pg from "pg";
import { deltaChannelHistoryTests, validate, type CheckpointSaverTestInitializer } from "@langchain/langgraph-checkpoint-validation";
import { PostgresCheckpointer } from "../../../src/storage/postgres/checkpointer.js";

// Our PostgresCheckpointer (LangGraph's PostgresSaver with our compact serializer, our setup and
// pruning) is the postgres backend's checkpointer; it must pass LangGraph's whole conformance
// suite, as the SQLite and Redis ones do, each on a schema of its own.
const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
const schemas = new Map<PostgresCheckpointer, string>();

afterAll(async () => {
  await pool.end();
});

const initializer: CheckpointSaverTestInitializer<PostgresCheckpointer> = {
  checkpointerName: "PostgresCheckpointer",
  async createCheckpointer() {
    const schema = `mg_ckpt_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
    const saver = new PostgresCheckpointer(pool, { schema });
    await saver.setup();
    schemas.set(saver, schema);
    return saver;
  },
  async destroyCheckpointer(saver) {
    await pool.query(`DROP SCHEMA IF EXISTS ${schemas.get(saver) ?? "missing"} CASCADE`);
  },
};

validate(initializer);
// Opt-in part of the suite (not run by validate): the walk that rebuilds DeltaChannel state.
deltaChannelHistoryTests(initializer);
