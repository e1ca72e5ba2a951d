import { log } from "../logger.js";
import type { MemoryGraphApp } from "../graph/build-graph.js";
import { NODE } from "../graph/state/node-names.js";
import { usageOf } from "../graph/state/turn-result.js";

/** The run config every turn shares: its thread, checkpointed once at the end. */
export type TurnConfig = { configurable: { thread_id: string }; durability: "exit" };

/** The run config of a thread's turn. */
export function turnConfig(threadId: string): TurnConfig {
  return { configurable: { thread_id: threadId }, durability: "exit" };
}

/**
 * What is done after a turn's reply, on a graph compiled with `replyFirst` (each run stops after
 * build_candidate, checkpointed there): the caller holds the thread's turn lock for both.
 * - `makeDueSummary` resumes the stopped run: summarize makes the summary that is due;
 * - `finishUpkeep` makes a summary that a run left due and nobody made (the process stopped, or
 *   its CPU was throttled, after the reply): true when it made one.
 */
export function upkeepOf(app: MemoryGraphApp) {
  async function makeDueSummary(config: TurnConfig): Promise<void> {
    const started = performance.now();
    const final = await app.invoke(null, config);
    const summary = final.usage.filter((call) => call.node === NODE.summarize);
    log.info("turn.upkeep", { summary_ms: Math.round(performance.now() - started), usage: usageOf(summary) });
  }

  async function finishUpkeep(threadId: string): Promise<boolean> {
    const config = turnConfig(threadId);
    // A run stopped after build_candidate with a summary due waits there, next: summarize.
    const snapshot = await app.getState(config);
    if (!snapshot.next.includes(NODE.summarize)) return false;
    await makeDueSummary(config);
    return true;
  }

  return { makeDueSummary, finishUpkeep };
}
