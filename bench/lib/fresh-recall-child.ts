/**
 * One side of `bench/recall-fresh.ts` run as a new process, as a fresh instance: reads its request
 * (a JSON file named by the first argument: the engine and where its data lies, the users with one
 * query each), opens a store with snapshots and an empty recall cache, and times the first
 * `searchSimilar` of each user in turn (`firstSearch`), the first in this process included (V8 has compiled
 * nothing of the restore and the ranking yet). With `warmUp`, first runs the service's recall
 * warm-ups to their end (`warmRecall`, then `warmStoreReads`, as `npm start` does once it listens
 * and no request is being answered). With `floor` (Postgres), also times per user a second search
 * (its index now cached: what a warm instance pays) and `readFloor` on a connection of its own (the
 * reads a first recall cannot do without), before the first search for every other user, after it
 * for the rest. Prints JSON: each user's ms, page faults and ranked ids, the warm-up's ms.
 */
import { readFileSync } from "node:fs";
import { setLogLevel } from "../../src/logger.js";
import type { StorePort } from "../../src/memory/ports/store.js";
import { firstSearch } from "./first-search.js";

/** What the parent asks of the child. */
export interface FreshRequest {
  backend: "sqlite" | "postgres";
  /** The SQLite file, or the Postgres schema. */
  where: string;
  url: string;
  /** `keys`: the user's hits as ranked in the parent, for `floor`. */
  users: { id: string; query: string; keys?: string[] }[];
  warmUp: boolean;
  floor?: boolean;
}

/** What the child prints. */
export interface FreshReply {
  ms: number[];
  /** The process's minor page faults during each first search: pages written for the first time (see docs/recall.md, session 12). */
  faults: number[];
  ranked: string[][];
  warmUpMs?: number;
  /** With `floor`: each user's second search, and the reads alone (`readFloor`). */
  cachedMs?: number[];
  floorMs?: number[];
}

setLogLevel("warn");
const request = JSON.parse(readFileSync(process.argv[2] as string, "utf8")) as FreshRequest;
let store: StorePort & { close(): Promise<void> | void };
if (request.backend === "sqlite") {
  const { SqliteStore } = await import("../../src/storage/sqlite/store.js");
  store = SqliteStore.open(request.where, { indexSnapshots: true });
} else {
  const { PostgresStore } = await import("../../src/storage/postgres/store.js");
  const pg = PostgresStore.fromConnString(request.url, { schema: request.where, indexCache: { snapshots: true } });
  await pg.setup();
  store = pg;
}
let warmUpMs: number | undefined;
if (request.warmUp) {
  const { warmRecall, warmStoreReads } = await import("../../src/memory/recall-warm-up.js");
  warmUpMs = (await warmRecall(() => true)) + (await warmStoreReads(store, () => true));
}
const reply: FreshReply = { ms: [], faults: [], ranked: [], warmUpMs };
const floor = request.floor && request.backend === "postgres" ? await floorReader() : undefined;
for (const [i, user] of request.users.entries()) {
  const floorFirst = floor && i % 2 === 0 ? await floor.read(user.id) : undefined;
  const faults = process.resourceUsage().minorPageFault;
  const { ms, ranked } = await firstSearch(store, user.id, user.query);
  reply.faults.push(process.resourceUsage().minorPageFault - faults);
  reply.ms.push(ms);
  reply.ranked.push(ranked.map((hit) => hit.slice(0, hit.indexOf("@"))));
  if (!floor) continue;
  (reply.cachedMs ??= []).push((await firstSearch(store, user.id, user.query)).ms);
  (reply.floorMs ??= []).push(floorFirst ?? (await floor.read(user.id)));
}
await Promise.all([store.close(), floor?.close()]);
process.stdout.write(JSON.stringify(reply));

/** `readFloor` on a connection of its own, warmed as the store's is (the last user's reads, three times, first). */
async function floorReader() {
  const pg = (await import("pg")).default;
  const { poolConfig } = await import("../../src/storage/postgres/sql.js");
  const { readFloor } = await import("./read-floor.js");
  const db = new pg.Client(poolConfig(request.url, 1));
  await db.connect();
  const keysOf = new Map(request.users.map((user) => [user.id, user.keys ?? []]));
  const read = (userId: string) => readFloor(db, request.where, userId, keysOf.get(userId) ?? []);
  const last = request.users.at(-1);
  for (let i = 0; last && i < 3; i++) await read(last.id);
  return { read, close: () => db.end() };
}
