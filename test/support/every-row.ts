import Database from "better-sqlite3";
import pg from "pg";
import { createClient, type RedisClientType } from "redis";

/**
 * Everything a database holds, read straight from it (no code of ours in between), as one line of
 * text per row or key, blobs as Latin-1 so that JSON inside them stays readable: what a test of
 * forgetting searches for a user's ids and words.
 */

/** Every row of every table of a SQLite file (sqlite_master's tables, the full-text ones' shadow tables too). */
export function sqliteRows(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
    return tables.flatMap(({ name }) =>
      (db.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}"`).all() as Record<string, unknown>[]).map((row) => `${name}: ${rowText(row)}`),
    );
  } finally {
    db.close();
  }
}

/** Every row of every table of every schema of a Postgres database but the system's. */
export async function postgresRows(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ schema: string; name: string }>(
      `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
       WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
    );
    const lines: string[] = [];
    for (const { schema, name } of tables) {
      const { rows } = await client.query<Record<string, unknown>>(`SELECT * FROM "${schema}"."${name}"`);
      for (const row of rows) lines.push(`${schema}.${name}: ${rowText(row)}`);
    }
    return lines;
  } finally {
    await client.end();
  }
}

/** Every key of a Redis server whose name or value contains one of `needles`, with its value. */
export async function redisEntriesWith(url: string, needles: readonly string[]): Promise<string[]> {
  const client = createClient({ url }) as RedisClientType;
  await client.connect();
  try {
    const found: string[] = [];
    for await (const keys of client.scanIterator({ COUNT: 500 })) {
      for (const key of ([] as string[]).concat(keys)) {
        const line = `${key}: ${await redisValueText(client, key)}`;
        if (needles.some((needle) => line.includes(needle))) found.push(line);
      }
    }
    return found;
  } finally {
    await client.quit();
  }
}

async function redisValueText(client: RedisClientType, key: string): Promise<string> {
  const type = await client.type(key);
  if (type === "string") return (await client.get(key)) ?? "";
  if (type === "hash") return JSON.stringify(await client.hGetAll(key));
  if (type === "list") return JSON.stringify(await client.lRange(key, 0, -1));
  if (type === "set") return JSON.stringify(await client.sMembers(key));
  if (type === "zset") return JSON.stringify(await client.zRange(key, 0, -1));
  return type;
}

function rowText(row: Record<string, unknown>): string {
  return JSON.stringify(row, (_key, value: unknown) => {
    if (Buffer.isBuffer(value)) return value.toString("latin1");
    if (typeof value === "object" && value !== null && (value as { type?: unknown }).type === "Buffer") {
      return Buffer.from((value as { data: number[] }).data).toString("latin1");
    }
    return typeof value === "bigint" ? String(value) : value;
  });
}
