import type { Persistence } from "../../memory/ports/persistence.js";
import type { StoreTtlConfig } from "../shared/ttl.js";
import { inProcessTurnLock } from "./turn-lock.js";

/**
 * The memory engine, for tests and the dev server: LangGraph's own `MemorySaver` and
 * `InMemoryStore` with LangGraph's store TTL added (`TtlMemoryStore`; a plain store otherwise:
 * recall ranks its items itself) and an in-process turn lock. Nothing survives the process, so
 * there is nothing to collect (`gc` is null; expired items go before any store operation runs).
 */
export async function openMemory(options: { ttl?: StoreTtlConfig } = {}): Promise<Persistence> {
  const [{ MemorySaver }, { TtlMemoryStore }] = await Promise.all([import("@langchain/langgraph"), import("./store.js")]);
  const store = new TtlMemoryStore({ ttl: options.ttl });
  return {
    kind: "memory",
    checkpointer: new MemorySaver(),
    store,
    turnLock: inProcessTurnLock(),
    gc: null,
    ping: async () => undefined,
    close: async () => store.stop(),
  };
}
