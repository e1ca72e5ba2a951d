/**
 * First recall of a user on a fresh instance: `npm run bench:recall-fresh [-- --backend sqlite|postgres|both]
 * [--data <longmemeval .json(.gz)>] [--users N] [--large 100000] [--repeat 5] [--fresh-runs 3]`.
 *
 * Imports every LongMemEval user (one question's haystack, ~500 long turns, through `importSessions`,
 * as a service imports a history) and one synthetic user of `--large` messages (batches of 500 puts,
 * then `warmSearch`), on a store that persists its recall indexes; waits for the snapshot writes.
 * Then opens two NEW stores on the same data, each with an empty recall cache: `before`
 * (`indexSnapshots: false`: the first search builds the user's index from every row) and `after`
 * (snapshots on: the first search reads the user's snapshot), and times the first `searchSimilar`
 * of each user on both, interleaved (which goes first alternates). The large user is measured
 * `--repeat` times, with two new stores each time. Checks that both return the same ranked ids
 * and scores, and with `both`, that SQLite and Postgres return the same ranked ids per user.
 * `after_alone`: after the pairs, the same first searches on one more new store with snapshots,
 * every user in turn, without a full build between them, as a fresh instance restores its users
 * (the large user `--repeat` times, each on a new store, before its pairs, with queries of their own).
 * `fresh_process`: the same first searches in a new process (`lib/fresh-recall-child.ts`), as a
 * fresh instance makes them: nothing compiled yet, no other heap; `fresh_process_warmed`: alike,
 * after the service's recall warm-ups (`warmRecall` and `warmStoreReads`, run once it listens;
 * the large user too, alone in each of `--repeat` such processes);
 * `--fresh-runs` processes of each kind, alternated, their first searches pooled (with the page
 * faults of each: pages a fresh process writes for the first time are most of what it pays more).
 * Beside each first search of the warmed processes and each lone first search of the large user
 * (Postgres): a second search of the user (cached) and the read floor (`lib/read-floor.ts`: the
 * snapshot's bytes and the hits' rows read, nothing decoded or ranked).
 * Prints JSON.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs, promisify } from "node:util";
import { performance } from "node:perf_hooks";
import { MemorySaver } from "@langchain/langgraph";
import type { PutOperation } from "@langchain/langgraph-checkpoint";
import pg from "pg";
import { createMemoryGraph } from "../src/index.js";
import { setLogLevel } from "../src/logger.js";
import { namespaces } from "../src/memory/namespaces.js";
import type { TranscriptRecord } from "../src/memory/records.js";
import { loadLongMemEval, sessionsOf } from "./lib/longmemeval-data.js";
import { percentile, round, timeStats } from "./lib/metrics.js";
import { seededRandom, syntheticSentence } from "./lib/synthetic.js";
import { firstSearch } from "./lib/first-search.js";
import { floorReport, readFloor } from "./lib/read-floor.js";
import { placeOf, type Place, type Store } from "./lib/recall-place.js";
import { poolConfig } from "../src/storage/postgres/sql.js";
import type { FreshReply, FreshRequest } from "./lib/fresh-recall-child.js";

const run = promisify(execFile);

const { values } = parseArgs({
  options: {
    backend: { type: "string", default: "both" },
    data: { type: "string", default: "../shared/bench/longmemeval/longmemeval-s-dev.json.gz" },
    users: { type: "string", default: "1000" },
    large: { type: "string", default: "100000" },
    repeat: { type: "string", default: "5" },
    "fresh-runs": { type: "string", default: "3" },
    "database-url": { type: "string" },
  },
});
if (!["sqlite", "postgres", "both"].includes(values.backend)) throw new Error(`--backend must be sqlite, postgres or both, not ${values.backend}`);
const backends = (values.backend === "both" ? ["sqlite", "postgres"] : [values.backend]) as ("sqlite" | "postgres")[];
const url = values["database-url"] ?? process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const questions = loadLongMemEval(values.data).slice(0, Number(values.users));
const largeMessages = Number(values.large);
const repeat = Number(values.repeat);
const freshRuns = Number(values["fresh-runs"]);
setLogLevel("warn");

const LARGE_USER = "large-user";

/**
 * The first searches of `users` in a new process (`lib/fresh-recall-child.ts`), with the recall
 * warm-up first when `warmUp`; with `floor` (each user's keys given), the child also times a cached
 * search and the reads alone.
 */
async function inFreshProcess(backend: "sqlite" | "postgres", where: string, warmUp: boolean, users: FreshRequest["users"], floor = false): Promise<FreshReply> {
  const dir = mkdtempSync(join(tmpdir(), "bench-fresh-child-"));
  try {
    const file = join(dir, "request.json");
    const request: FreshRequest = { backend, where, url, users, warmUp, floor };
    writeFileSync(file, JSON.stringify(request));
    const child = fileURLToPath(new URL("./lib/fresh-recall-child.ts", import.meta.url));
    const { stdout } = await run(process.execPath, [...process.execArgv, child, file], { maxBuffer: 64 * 1024 * 1024 });
    return JSON.parse(stdout) as FreshReply;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function importAll(store: Store): Promise<void> {
  const memory = await createMemoryGraph({ persistence: { store, checkpointer: new MemorySaver() }, embeddings: null, chatModel: null, logger: false });
  for (const q of questions) {
    const user = { tenantId: "bench", userId: q.id };
    for (const session of sessionsOf(q)) await memory.importSessions(user, [session]);
  }
  const random = seededRandom(42);
  const scope = (session: number) => ({ tenantId: "bench", userId: LARGE_USER, sessionId: `s${session}` });
  let parentId: string | null = null;
  for (let written = 0; written < largeMessages; ) {
    const ops: PutOperation[] = [];
    for (let i = 0; i < 500 && written < largeMessages; i++, written++) {
      const session = Math.floor(written / 100);
      const record: TranscriptRecord = {
        id: `m${written}`,
        role: written % 2 === 0 ? "user" : "assistant",
        text: syntheticSentence(random, 6 + Math.floor(random() * 14)),
        speaker: written % 2 === 0 ? "Pat" : "Assistant",
        parentId: written % 100 === 0 ? null : parentId,
        sessionId: `s${session}`,
        createdAt: new Date(Date.UTC(2024, 0, 1) + written * 60_000).toISOString(),
      };
      parentId = record.id;
      ops.push({ namespace: namespaces.transcript(scope(session)), key: record.id, value: { ...record } });
    }
    await store.batch(ops);
  }
  if (largeMessages > 0) await store.warmSearch?.(namespaces.sessions({ tenantId: "bench", userId: LARGE_USER }));
  await store.indexSnapshotsSettled?.();
  await memory.close();
}

/** Times the first search of `userId` on a `before` and an `after` store, the one going first alternating with `turn`. */
async function pair(before: Store, after: Store, userId: string, query: string, turn: number) {
  const first = turn % 2 === 0 ? before : after;
  const second = first === before ? after : before;
  const a = await firstSearch(first, userId, query);
  const b = await firstSearch(second, userId, query);
  const [on, off] = first === before ? [b, a] : [a, b];
  return { before: off, after: on };
}

/** The large user's first searches: `--repeat` times alone on a new store, then alone in `--repeat` new warmed processes, then `--repeat` pairs (see the top). */
async function measureLarge(place: Place, backend: "sqlite" | "postgres") {
  if (largeMessages <= 0) return undefined;
  const large = { before: [] as number[], after: [] as number[], alone: [] as number[], cached: [] as number[], floor: [] as number[], identical: 0 };
  const random = seededRandom(7);
  // Postgres: the reads alone beside each lone first search (`readFloor`, after it and its cached second search).
  const db = backend === "postgres" ? new pg.Client(poolConfig(url, 1)) : undefined;
  await db?.connect();
  // The large user alone first too (a new store each time), before any full build of it.
  for (let r = 0; r < repeat; r++) {
    const single = await place.open(true);
    const query = syntheticSentence(random, 8);
    const first = await firstSearch(single, LARGE_USER, query);
    large.alone.push(first.ms);
    large.cached.push((await firstSearch(single, LARGE_USER, query)).ms);
    const keys = first.ranked.map((hit) => hit.slice(0, hit.indexOf("@")));
    if (db) large.floor.push(await readFloor(db, place.where, LARGE_USER, keys));
    await single.close();
  }
  await db?.end();
  // As a fresh instance meets it: alone in a new process, after the service's warm-ups.
  const warmed: number[] = [];
  for (let r = 0; r < repeat; r++) {
    const reply = await inFreshProcess(backend, place.where, true, [{ id: LARGE_USER, query: syntheticSentence(random, 8) }]);
    warmed.push(...reply.ms);
  }
  for (let r = 0; r < repeat; r++) {
    const [b, a] = [await place.open(false), await place.open(true)];
    const { before: off, after: on } = await pair(b, a, LARGE_USER, syntheticSentence(random, 8), r);
    large.before.push(off.ms);
    large.after.push(on.ms);
    if (JSON.stringify(off.ranked) === JSON.stringify(on.ranked)) large.identical += 1;
    await Promise.all([b.close(), a.close()]);
  }
  return {
    messages: largeMessages,
    first_query_ms: { before: timeStats(large.before), after: timeStats(large.after), after_alone: timeStats(large.alone), fresh_process_warmed: timeStats(warmed) },
    beside_after_alone: { cached_second_search: timeStats(large.cached), ...(db ? { read_floor: timeStats(large.floor) } : {}) },
    identical_rankings: `${large.identical}/${repeat}`,
  };
}

async function measure(backend: "sqlite" | "postgres") {
  const place = placeOf(backend, url);
  try {
    const writer = await place.open(true);
    const importStarted = performance.now();
    await importAll(writer);
    const importMs = performance.now() - importStarted;
    await writer.close();
    const sizes = await place.snapshotBytes();
    const before = await place.open(false);
    const after = await place.open(true);
    const lme = { before: [] as number[], after: [] as number[], identical: 0 };
    const ranked = new Map<string, string[]>();
    for (const [i, q] of questions.entries()) {
      const { before: off, after: on } = await pair(before, after, q.id, q.question, i);
      lme.before.push(off.ms);
      lme.after.push(on.ms);
      if (JSON.stringify(off.ranked) === JSON.stringify(on.ranked)) lme.identical += 1;
      ranked.set(q.id, on.ranked.map((hit) => hit.slice(0, hit.indexOf("@"))));
    }
    await Promise.all([before.close(), after.close()]);
    // As a fresh instance restores its users: from their snapshots, one after another, with no full
    // build between them (whose garbage the pairs above collect during the next first search). After
    // the pairs, not right after the import, whose tail the server is still writing and analysing.
    const alone = await place.open(true);
    const aloneMs: number[] = [];
    for (const q of questions) aloneMs.push((await firstSearch(alone, q.id, q.question)).ms);
    await alone.close();
    // `--fresh-runs` new processes of each kind, alternated: a p95 over one process's 119 first
    // searches is its sixth slowest, and moved by 5–15 ms between runs on this machine.
    const runs: { fresh: FreshReply[]; warmed: FreshReply[] } = { fresh: [], warmed: [] };
    const users = questions.map((q) => ({ id: q.id, query: q.question, keys: ranked.get(q.id) }));
    for (let run = 0; run < freshRuns; run++) {
      runs.fresh.push(await inFreshProcess(backend, place.where, false, users));
      runs.warmed.push(await inFreshProcess(backend, place.where, true, users, backend === "postgres"));
    }
    const same = (replies: FreshReply[]) =>
      replies.reduce((n, reply) => n + questions.filter((q, i) => JSON.stringify(reply.ranked[i]) === JSON.stringify(ranked.get(q.id))).length, 0);
    const pooled = (replies: FreshReply[]) => replies.flatMap((reply) => reply.ms);
    const large = await measureLarge(place, backend);
    sizes.sort((x, y) => x - y);
    return {
      report: {
        import_s: round(importMs / 1000, 1),
        snapshots: { count: sizes.length, bytes_p50: percentile(sizes, 50), bytes_max: sizes.at(-1) ?? 0 },
        longmemeval: {
          users: questions.length,
          turns_per_user_p50: percentile(
            questions.map((q) => q.turns.length),
            50,
          ),
          first_query_ms: {
            before: timeStats(lme.before),
            after: timeStats(lme.after),
            after_alone: timeStats(aloneMs),
            fresh_process: timeStats(pooled(runs.fresh)),
            fresh_process_warmed: timeStats(pooled(runs.warmed)),
          },
          ...floorReport(runs.warmed),
          // Minor page faults per first search (pages the process wrote for the first time, ~10–15 µs each on this project's VM).
          fresh_process_faults: { fresh: timeStats(runs.fresh.flatMap((reply) => reply.faults)), warmed: timeStats(runs.warmed.flatMap((reply) => reply.faults)) },
          fresh_process_first_five_ms: runs.fresh.map((reply) => reply.ms.slice(0, 5).map((ms) => round(ms, 1))),
          fresh_process_warmed_first_five_ms: runs.warmed.map((reply) => reply.ms.slice(0, 5).map((ms) => round(ms, 1))),
          warm_up_ms: runs.warmed.map((reply) => reply.warmUpMs),
          p95_ratio_after_over_before: round(percentile(lme.after, 95) / percentile(lme.before, 95), 3),
          identical_rankings: `${lme.identical}/${questions.length}`,
          identical_rankings_fresh_process: `${same(runs.fresh)}/${questions.length * freshRuns}, warmed ${same(runs.warmed)}/${questions.length * freshRuns}`,
        },
        large_user: large,
      },
      ranked,
    };
  } finally {
    await place.drop();
  }
}

const out: Record<string, unknown> = { data: values.data, large_messages: largeMessages, repeat };
const rankedBy = new Map<string, Map<string, string[]>>();
for (const backend of backends) {
  const { report, ranked } = await measure(backend);
  out[backend] = report;
  rankedBy.set(backend, ranked);
}
const [sqlite, postgres] = [rankedBy.get("sqlite"), rankedBy.get("postgres")];
if (sqlite && postgres) {
  const same = questions.filter((q) => JSON.stringify(sqlite.get(q.id)) === JSON.stringify(postgres.get(q.id))).length;
  out.sqlite_vs_postgres_identical_ids = `${same}/${questions.length}`;
}
process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
