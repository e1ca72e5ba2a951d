import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { afterEach, describe, expect, it } from "vitest";
import { MemoryGraphError } from "../../src/errors.js";
import type { Persistence, PersistenceTraits, TurnLock } from "../../src/memory/ports/persistence.js";
import { makeResilient } from "../../src/resilience/resilient-persistence.js";
import { inProcessPersistence } from "../../src/storage/memory/open.js";
import { IN_PROCESS_TRAITS, ONE_DATABASE_TRAITS } from "../../src/storage/shared/traits.js";

const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
/** A turn lock whose storage is gone: every attempt fails as an outage. */
const unreachableLock: TurnLock = { run: () => Promise.reject(refused) };

/** A persistence of kind "sqlite" (the name says nothing to the guards) with the given traits. */
function persistence(traits: PersistenceTraits): Persistence {
  return {
    kind: "sqlite",
    traits,
    checkpointer: new MemorySaver(),
    store: new InMemoryStore(),
    turnLock: unreachableLock,
    userLock: { shared: () => Promise.reject(refused), exclusive: () => Promise.reject(refused) },
    gc: null,
    ping: () => Promise.reject(refused),
    close: async () => undefined,
  };
}

describe("makeResilient goes by the traits a persistence declares", () => {
  const opened: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((p) => p.close()));
  });
  const resilient = (traits: PersistenceTraits) => {
    const { persistence: guarded } = makeResilient(persistence(traits), 200);
    opened.push(guarded);
    return guarded;
  };

  it("runs a turn under this process's own lock when the lock lives in an unreachable session store", async () => {
    const guarded = resilient({ sharedAcrossProcesses: true, turnLockIn: "session_store", prunedCheckpointsIn: "memory_store" });
    await expect(guarded.turnLock.run("t/u/s", async () => "ran")).resolves.toBe("ran");
  });

  it("refuses a turn as the memory store's outage when the lock lives in the memory store", async () => {
    const guarded = resilient({ sharedAcrossProcesses: true, turnLockIn: "memory_store", prunedCheckpointsIn: "session_store" });
    const error = await guarded.turnLock.run("t/u/s", async () => "ran").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MemoryGraphError);
    expect((error as MemoryGraphError).code).toBe("MEMORY_STORE_UNAVAILABLE");
  });

  it("leaves a lock of this process alone unguarded (its error comes back as it is)", async () => {
    const guarded = resilient({ sharedAcrossProcesses: false, turnLockIn: "memory_store", prunedCheckpointsIn: "session_store" });
    await expect(guarded.turnLock.run("t/u/s", async () => "ran")).rejects.toBe(refused);
  });
});

describe("a persistence brought to createMemoryGraph", () => {
  it("is of this process when it is a checkpointer and a store alone", () => {
    const brought = inProcessPersistence({ checkpointer: new MemorySaver(), store: new InMemoryStore() });
    expect({ kind: brought.kind, traits: brought.traits, gc: brought.gc }).toEqual({ kind: "memory", traits: IN_PROCESS_TRAITS, gc: null });
  });

  it("keeps what an engine's persistence declares", () => {
    const engine = persistence(ONE_DATABASE_TRAITS);
    const brought = inProcessPersistence(engine);
    expect({ kind: brought.kind, traits: brought.traits, turnLock: brought.turnLock }).toEqual({ kind: "sqlite", traits: ONE_DATABASE_TRAITS, turnLock: unreachableLock });
  });
});

describe("engine names outside the engines", () => {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../src");
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? files(full) : full.endsWith(".ts") ? [full] : [];
    });
  // The engine choice itself (by the configured name) and the engines' own folders may name an engine.
  const allowed = new Set(["storage", path.join("app", "backends.ts"), path.join("app", "startup-checks.ts"), path.join("app", "rate-limit-store.ts"), "cli"]);

  it("no code outside src/storage and the engine choice branches on which engine a persistence is", () => {
    const branch = /\.kind\s*[!=]==?\s*"(memory|sqlite|postgres|redis)"/;
    const found = files(root)
      .filter((file) => ![...allowed].some((prefix) => path.relative(root, file).startsWith(prefix)))
      .filter((file) => branch.test(readFileSync(file, "utf8")));
    expect(found.map((file) => path.relative(root, file))).toEqual([]);
  });
});
