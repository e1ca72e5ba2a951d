import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";
import { openPersistence, type BackendOptions } from "../../src/app/backends.js";
import { createMemoryGraph, type MemoryGraph } from "../../src/app/create-memory-graph.js";
import { postgresRows, redisEntriesWith, sqliteRows } from "./every-row.js";
import { GatedChatModel } from "./models.js";
import { createTempDatabase } from "./postgres.js";

/**
 * The engines two graphs can share, as two instances of the service share them, for tests of a
 * change made on one graph while a turn runs on the other: each with a way to read every row (and
 * Redis key) straight from storage.
 */

const REDIS_URL = "redis://127.0.0.1:6379";

/** A gated model that also says when its first call is waiting at the gate. */
export class HeldModel extends GatedChatModel {
  private heard!: () => void;
  readonly called = new Promise<void>((resolve) => (this.heard = resolve));

  protected override waitToAnswer(): Promise<void> {
    this.heard();
    return super.waitToAnswer();
  }
}

export interface SharedEngine {
  options: BackendOptions;
  /** Every row (or key) of the engine's storage that contains one of `needles`. */
  rowsWith(needles: readonly string[]): Promise<string[]>;
  cleanup(): Promise<void> | void;
}

export const SHARED_ENGINES: [string, () => Promise<SharedEngine>][] = [
  [
    "SQLite (two graphs on one file)",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-race-"));
      const file = path.join(dir, "m.db");
      return {
        options: { backend: "sqlite", sqlitePath: file },
        rowsWith: async (needles) => sqliteRows(file).filter((row) => needles.some((needle) => row.includes(needle))),
        cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
      };
    },
  ],
  [
    "Postgres (two graphs on one database)",
    async () => {
      const db = await createTempDatabase();
      return {
        options: { backend: "postgres", databaseUrl: db.url },
        rowsWith: async (needles) => (await postgresRows(db.url)).filter((row) => needles.some((needle) => row.includes(needle))),
        cleanup: db.drop,
      };
    },
  ],
  [
    "Postgres with Redis sessions (two graphs)",
    async () => {
      const db = await createTempDatabase();
      return {
        options: { backend: "redis", redisUrl: REDIS_URL, databaseUrl: db.url },
        rowsWith: async (needles) => [
          ...(await postgresRows(db.url)).filter((row) => needles.some((needle) => row.includes(needle))),
          ...(await redisEntriesWith(REDIS_URL, needles)),
        ],
        cleanup: db.drop,
      };
    },
  ],
];

type GraphOptions = Parameters<typeof createMemoryGraph>[0];

/** A race test's engine and graphs, every one closed after each test (graphs first, the engine's storage last). */
export interface RaceRig {
  /** Opens the engine for this test. */
  open(make: () => Promise<SharedEngine>): Promise<SharedEngine>;
  /** A graph on `engine` with `options`. */
  graph(engine: SharedEngine, options: Omit<GraphOptions, "persistence">): Promise<MemoryGraph>;
  /** A graph on `engine` whose user lock says (`lockAsked`) when something asks for a user alone: an event to wait for, not a time. */
  lockWatchingGraph(engine: SharedEngine, options: Omit<GraphOptions, "persistence" | keyof BackendOptions>): Promise<{ graph: MemoryGraph; lockAsked: Promise<void> }>;
}

/** The rig of one `describe` block (registers its `afterEach`). */
export function raceRig(): RaceRig {
  const closing: (() => unknown)[] = [];
  afterEach(async () => {
    for (let close = closing.pop(); close; close = closing.pop()) await close();
  });
  const graphOn = async (options: GraphOptions) => {
    const graph = await createMemoryGraph(options);
    closing.push(() => graph.close());
    return graph;
  };
  return {
    async open(make) {
      const engine = await make();
      closing.push(() => engine.cleanup());
      return engine;
    },
    graph: (engine, options) => graphOn({ ...engine.options, ...options }),
    async lockWatchingGraph(engine, options) {
      const raw = await openPersistence(engine.options);
      closing.push(() => raw.close());
      let asked!: () => void;
      const lockAsked = new Promise<void>((resolve) => (asked = resolve));
      const base = raw.userLock;
      const userLock = {
        shared: base.shared.bind(base),
        exclusive: <T>(key: string, work: () => Promise<T>) => {
          asked();
          return base.exclusive(key, work);
        },
      };
      const graph = await graphOn({ ...options, persistence: { ...raw, gc: raw.gc ?? undefined, userLock } });
      return { graph, lockAsked };
    },
  };
}
