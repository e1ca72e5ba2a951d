/**
 * One side of `bench/recall-fresh.ts` run as a new process, as a fresh instance: reads its request
 * (a JSON file named by the first argument: the engine and where its data lies, the users with one
 * query each), opens a store with snapshots and an empty recall cache, and times the first
 * `searchSimilar` of each user in turn (`firstSearch`), the first in this process included (V8 has compiled
 * nothing of the restore and the ranking yet). With `warmUp`, first runs the service's recall
 * warm-ups to their end (`warmRecall`, then `warmStoreReads`, as `npm start` does once it listens
 * and no request is being answered). Prints JSON: each user's ms, page faults and ranked ids, the warm-up's ms.
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
  users: { id: string; query: string }[];
  warmUp: boolean;
}

/** What the child prints. */
export interface FreshReply {
  ms: number[];
  /** The process's minor page faults during each first search: pages written for the first time (see docs/recall.md, session 12). */
  faults: number[];
  ranked: string[][];
  warmUpMs?: number;
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
for (const user of request.users) {
  const faults = process.resourceUsage().minorPageFault;
  const { ms, ranked } = await firstSearch(store, user.id, user.query);
  reply.faults.push(process.resourceUsage().minorPageFault - faults);
  reply.ms.push(ms);
  reply.ranked.push(ranked.map((hit) => hit.slice(0, hit.indexOf("@"))));
}
await store.close();
process.stdout.write(JSON.stringify(reply));
