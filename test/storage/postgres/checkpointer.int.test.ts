import { randomUUID } from "node:crypto";
import pg from "pg";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { validate, type CheckpointSaverTestInitializer } from "@langchain/langgraph-checkpoint-validation";

// LangGraph's PostgresSaver is the postgres backend's checkpointer; it must pass the whole suite,
// on a schema of its own.
const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
const schemas = new Map<PostgresSaver, string>();

afterAll(async () => {
  await pool.end();
});

const initializer: CheckpointSaverTestInitializer<PostgresSaver> = {
  checkpointerName: "PostgresSaver",
  async createCheckpointer() {
    const schema = `mg_ckpt_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
    const saver = new PostgresSaver(pool, undefined, { schema });
    await saver.setup();
    schemas.set(saver, schema);
    return saver;
  },
  async destroyCheckpointer(saver) {
    await pool.query(`DROP SCHEMA IF EXISTS ${schemas.get(saver) ?? "missing"} CASCADE`);
  },
};

validate(initializer);
