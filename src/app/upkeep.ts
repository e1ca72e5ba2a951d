import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseStore } from "@langchain/langgraph";
import { log } from "../logger.js";
import { countTokens } from "../telemetry.js";
import type { MemoryGraphApp } from "../graph/build-graph.js";
import type { GraphDeps } from "../graph/nodes/deps.js";
import { makeSummary, summarizedSession, summaryDue } from "../graph/nodes/summarize.js";
import { scopeOfState } from "../graph/nodes/turn.js";
import { NODE } from "../graph/state/node-names.js";
import type { MemoryState, SessionInfo } from "../graph/state/state.js";
import { usageOf } from "../graph/nodes/build-candidate.js";
import { saveSummary } from "../memory/summaries.js";
import type { TurnLock } from "../memory/ports/persistence.js";
import type { TurnInput } from "../graph/state/turn-input.js";
import { titleSession } from "./session-titles.js";

/** What upkeep works with: the facade's graph (its checkpointer), the store, the session locks. */
export interface UpkeepParts {
  app: MemoryGraphApp;
  store: BaseStore;
  turnLock: TurnLock;
  deps: GraphDeps;
  stateOf: (threadId: string) => Promise<MemoryState | null>;
  /** The model that titles sessions, or null when sessions are not titled. */
  titleModel: BaseChatModel | null;
}

/**
 * What follows a turn once its session's lock is released, so that no turn waits while a model writes:
 * - `afterTurn` titles a new session (`titleModel`) and makes the summary that is due;
 * - a summary (`summarize(threadId, state)`) starts from `state` (a snapshot of the session as a turn left
 *   it) without the session's lock: the messages it covers are read and summarized while later
 *   turns run. Only the commit takes the lock: the summary is stored and the session's checkpoint
 *   told (as the summarize node would: the pairs it covered stop counting, its last message is the
 *   newest summarized), in one short step. If the session's last summary changed meanwhile
 *   (another process committed one), this one is dropped, so a range is never summarized twice;
 *   the pairs it would have covered stay due. One summary per session at a time in this process;
 *   when turns that came meanwhile made the next one due, it follows at once.
 * - `finishUpkeep(threadId)`, called with the session's lock held (garbage collection), makes a
 *   summary that a run left due and nobody made (the process stopped, or its CPU was throttled,
 *   after the reply): true when it made one.
 * A summary is seen by the turns that start after its commit; it removes no message, so a turn
 * that starts before still has every message it covers.
 */
export function upkeepOf(parts: UpkeepParts) {
  const { app, store, turnLock, deps } = parts;
  const inFlight = new Map<string, Promise<void>>();

  /**
   * Makes the summary from `snapshot`, then commits it, under the session's lock unless the caller
   * holds it (`held`). Returns the session as committed, or null when the summary was dropped.
   */
  async function summarizeFrom(threadId: string, snapshot: MemoryState, held: boolean): Promise<SessionInfo | null> {
    const started = performance.now();
    const scope = scopeOfState(snapshot);
    const made = await makeSummary(deps, store, scope, snapshot.session, snapshot.turn?.id);
    // Made after the turn's result, so in no result: counted in the token metric, kept or dropped.
    countTokens(made.usage, scope.tenantId);
    const commit = async () => {
      const current = await parts.stateOf(threadId);
      if (!current || current.session.summarizedThroughId !== snapshot.session.summarizedThroughId) return null;
      if (made.summary) await saveSummary(store, scope, made.summary);
      const session = summarizedSession(current.session, made, snapshot.session.pairsSinceSummary);
      // Written as the summarize node's own update, what a run of the graph alone would write.
      await app.updateState({ configurable: { thread_id: threadId } }, { errors: made.errors, session }, NODE.summarize);
      return { ...current.session, ...session };
    };
    const committed = held ? await commit() : await turnLock.run(threadId, commit);
    const summaryMs = Math.round(performance.now() - started);
    if (!committed) log.info("turn.summary_dropped", { summary_ms: summaryMs, reason: "the session was summarized meanwhile" });
    else log.info("turn.upkeep", { summary_ms: summaryMs, usage: usageOf(made.usage) });
    return committed;
  }

  /** The session's due summary from `snapshot`, and the next ones the turns made meanwhile made due, one after the other. */
  function summarize(threadId: string, snapshot: MemoryState): Promise<void> {
    const running = inFlight.get(threadId);
    if (running) return running;
    const work = (async () => {
      let from: MemoryState | null = snapshot;
      while (from) {
        const after = await summarizeFrom(threadId, from, false);
        if (!after || after.pairsSinceSummary < deps.limits.summaryInterval) return;
        from = await parts.stateOf(threadId);
        if (from && !summaryDue(from, deps.limits.summaryInterval)) return;
      }
    })().finally(() => inFlight.delete(threadId));
    inFlight.set(threadId, work);
    return work;
  }

  async function finishUpkeep(threadId: string): Promise<boolean> {
    // A summary the session's last turn left due (its process stopped before making it).
    const state = await parts.stateOf(threadId);
    if (!state || !summaryDue(state, deps.limits.summaryInterval)) return false;
    return (await summarizeFrom(threadId, state, true)) !== null;
  }

  /** After a turn's lock: the session's title (after its first answered turn), then its due summary. */
  async function afterTurn(threadId: string, input: TurnInput, state: MemoryState): Promise<void> {
    if (parts.titleModel && state.status === "OK" && state.candidate && input.remember !== false) {
      await titleSession(store, parts.titleModel, input, { user: state.turn?.text ?? "", reply: state.candidate.text });
    }
    if (summaryDue(state, deps.limits.summaryInterval)) await summarize(threadId, state);
  }

  return { afterTurn, finishUpkeep };
}
