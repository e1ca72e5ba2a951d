import type { Persistence } from "../../memory/ports/persistence.js";
import { inProcessTurnLock } from "./turn-lock.js";

/**
 * The memory engine, for tests and the dev server: LangGraph's own `MemorySaver` and
 * `InMemoryStore` (a plain store: recall ranks its items itself) with an in-process turn lock.
 * Nothing survives the process, so there is nothing to collect (`gc` is null).
 */
export async function openMemory(): Promise<Persistence> {
  const { InMemoryStore, MemorySaver } = await import("@langchain/langgraph");
  return {
    kind: "memory",
    checkpointer: new MemorySaver(),
    store: new InMemoryStore(),
    turnLock: inProcessTurnLock(),
    gc: null,
    ping: async () => undefined,
    close: async () => undefined,
  };
}
