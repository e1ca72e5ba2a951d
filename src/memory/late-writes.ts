import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { messageOf } from "../errors.js";
import { log } from "../logger.js";
import { capable, supportsOf } from "./store-io.js";

/**
 * Writes a turn leaves for after its answer, held by whoever runs the turn: the turn runner (and
 * the agent middleware) make one per turn, hand it to the writer (`saveAnswer`), and await
 * `settled()` before they let go of the turn, so that `settled()` and `close()` of the memory graph
 * (a graceful shutdown) wait for them too. Each write starts at once, and its failure is logged,
 * never thrown: a late write only adds what can be derived again from what is stored already.
 */
export class LateWrites {
  private readonly pending = new Set<Promise<void>>();

  /** Starts `write` now; a failure is logged as `memory.late_write_failed` with `what` it was. */
  start(what: string, write: () => Promise<unknown>): void {
    const done = write().then(
      () => undefined,
      (error: unknown) => log.warn("memory.late_write_failed", { what, error: messageOf(error) }),
    );
    this.pending.add(done);
    void done.finally(() => this.pending.delete(done));
  }

  /** Resolves once every write started so far has ended (written, or failed and logged); never rejects. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }
}

/**
 * Whether the vector of an item written to `store` can come after the item: the store writes an
 * item's text index at once and its vector later (`deferredVectors`), and the caller holds the
 * turn until its late writes are done (`later`).
 */
export function vectorCanWait(store: BaseStore, later: LateWrites | undefined): later is LateWrites {
  return later !== undefined && supportsOf(store).deferredVectors;
}

/**
 * Starts, on `later`, the vector of the item at `key` of `namespace`, written with `deferVector`:
 * written onto the item only if it is still stored as it was (see `StorePort.embedDeferred`): a
 * message deleted or edited meanwhile stays so. On failure the item stays, found by text; nothing
 * computes its vector again (a later write of the item does).
 */
export function embedLater(store: BaseStore, later: LateWrites, namespace: string[], key: string): void {
  later.start("vector", () => capable(store, "deferredVectors").embedDeferred(namespace, [key]));
}
