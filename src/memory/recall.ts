import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { truncate } from "./clip.js";
import { importantEvents } from "./events.js";
import { excerpt } from "./excerpt.js";
import { currentFacts, loadFacts } from "./facts.js";
import type { RecallLimits } from "./limits.js";
import { namespaces } from "./namespaces.js";
import type { EventRecord, FactRecord, SummaryRecord, TranscriptRecord } from "./records.js";
import type { MemoryScope } from "./scope.js";
import { searchSimilar, type SimilarMessage } from "./similar.js";
import { hasStoredAtLeast, newestFirst, newestItems, valuesOf } from "./store-io.js";
import { latestSummaries } from "./summaries.js";
import { isRecallable } from "./transcript.js";

/**
 * Most characters of a recalled message's or event's text that recall hands on (longer ones are
 * cut, ending in "…"; the store keeps the whole). The prompt shows at most a few hundred of them
 * per item (`ContextLimits`), and the context goes into the turn's checkpoint and answer: a
 * session of 32,000-character prompts must not carry dozens of them whole.
 */
export const RECALLED_TEXT_CHARS = 1_000;

/** Everything recall found for one turn; returned to callers as `memory_context`. */
export interface MemoryContext {
  /** Recent stored turns of this user that are not in the current window, newest first. */
  recentTurns: TranscriptRecord[];
  summaries: SummaryRecord[];
  /** Current attributes and facts (superseded ones are not shown to the model). */
  facts: FactRecord[];
  events: EventRecord[];
  similar: SimilarMessage[];
  /** Whether similar messages were searched in this session only or in all the user's sessions. */
  searchedScope: "session" | "user";
}

export const EMPTY_CONTEXT: MemoryContext = { recentTurns: [], summaries: [], facts: [], events: [], similar: [], searchedScope: "session" };

export interface RecallRequest {
  scope: MemoryScope;
  query: string;
  /** Ids already in the window (and the new message): not recalled again. */
  excludeIds: ReadonlySet<string>;
  limits: RecallLimits;
  embeddings?: EmbeddingsInterface;
}

/**
 * Builds the memory context of one turn from the store, texts bounded by `RECALLED_TEXT_CHARS`.
 * Reads only; never writes.
 */
export async function recallContext(store: BaseStore, request: RecallRequest): Promise<MemoryContext> {
  const { scope, limits } = request;
  const thin = !(await hasStoredAtLeast(store, namespaces.transcript(scope), limits.thinSessionMessages));
  const searchedScope = thin ? "user" : "session";
  const prefix = searchedScope === "user" ? namespaces.sessions(scope) : namespaces.transcript(scope);
  const [recentTurns, summaries, facts, events, similar] = await Promise.all([
    recentStoredTurns(store, scope, request.excludeIds, limits),
    latestSummaries(store, scope, limits.summaries),
    loadFacts(store, scope).then(currentFacts),
    importantEvents(store, scope, { minImportance: limits.importantMinScore, limit: limits.importantEvents, window: limits.maxCandidates }),
    searchSimilar(store, prefix, {
      query: request.query,
      limit: limits.similarTopK,
      maxCandidates: limits.maxCandidates,
      minVectorScore: limits.minVectorScore,
      excludeIds: request.excludeIds,
      embeddings: request.embeddings,
    }),
  ]);
  return {
    recentTurns: recentTurns.map(withBoundedText),
    summaries,
    facts,
    events: events.map(withBoundedText),
    // A long message is shown by the part that matches the query, not by its first characters.
    similar: similar.map((m) => (m.text.length <= RECALLED_TEXT_CHARS ? m : { ...m, text: excerpt(m.text, request.query, RECALLED_TEXT_CHARS) })),
    searchedScope,
  };
}

/** `item` with its text cut to `RECALLED_TEXT_CHARS` (the same object when it is short enough). */
function withBoundedText<T extends { text: string }>(item: T): T {
  return item.text.length <= RECALLED_TEXT_CHARS ? item : { ...item, text: truncate(item.text, RECALLED_TEXT_CHARS) };
}

async function recentStoredTurns(
  store: BaseStore,
  scope: MemoryScope,
  excludeIds: ReadonlySet<string>,
  limits: RecallLimits,
): Promise<TranscriptRecord[]> {
  // Offline replies are stored but not recalled; read twice as many so that they do not crowd out turns.
  const items = await newestItems(store, namespaces.sessions(scope), { limit: 2 * limits.recentTurns + excludeIds.size });
  const turns = valuesOf<TranscriptRecord>(items.filter((item) => isRecallable(item.value))).filter((turn) => !excludeIds.has(turn.id));
  return newestFirst(turns, (t) => t.createdAt).slice(0, limits.recentTurns);
}
