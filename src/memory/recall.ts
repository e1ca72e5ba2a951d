import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { truncate } from "./clip.js";
import { importantEvents } from "./events.js";
import { excerptReadChars, excerpter } from "./excerpt.js";
import { correctionMarker, correctionsOf, type Correction } from "./corrections.js";
import { currentFacts, loadFacts } from "./facts.js";
import type { RecallLimits } from "./limits.js";
import { namespaces } from "./namespaces.js";
import type { EventRecord, FactRecord, SummaryRecord, TranscriptRecord } from "./records.js";
import type { MemoryScope } from "./scope.js";
import { searchSimilar, type SimilarMessage } from "./similar.js";
import { queryVectorWithin, type VectorSearch } from "./query-vector.js";
import { hasStoredAtLeast, newestFirst, newestItems, valuesOf } from "./store-io.js";
import { latestSummaries } from "./summaries.js";
import { freshSummaries } from "./summary-staleness.js";
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
  /** Whether the similar-message search had the query's vector (see `VectorSearch`); absent: not searched. */
  vectorSearch?: VectorSearch;
  /** The changed fact values the recalled texts were corrected by (see corrections.ts); absent when none. The prompt's history is corrected by them too. */
  corrections?: Correction[];
}

export const EMPTY_CONTEXT: MemoryContext = { recentTurns: [], summaries: [], facts: [], events: [], similar: [], searchedScope: "session" };

export interface RecallRequest {
  /** Whose memory; without a session, recall is that of a new session (every session of the user searched). */
  scope: Pick<MemoryScope, "tenantId" | "userId"> & { sessionId?: string };
  query: string;
  /** Ids already in the window (and the new message): not recalled again. */
  excludeIds: ReadonlySet<string>;
  limits: RecallLimits;
  embeddings?: EmbeddingsInterface;
  /**
   * The new message's vector, being computed (resolving to undefined when that failed): waited for
   * at most `limits.vectorWaitMs`, after which recall ranks lexically (see `queryVectorWithin`).
   * Left out, the query is embedded with `embeddings` and waited for.
   */
  pendingVector?: Promise<number[] | undefined>;
  /** The embeddings provider's typical round trip, ms: over the wait, recall does not wait. */
  typicalVectorMs?: number;
  /** The time facts are current at (default: the clock's); an expired fact is not recalled. */
  now?: Date;
  /** The parts to read (default: all); a part left out is not read and comes back empty. */
  parts?: ReadonlySet<RecallPart>;
}

/** The parts of a memory context recall reads. */
export type RecallPart = "recentTurns" | "summaries" | "facts" | "events" | "similar";
const ALL_PARTS: readonly RecallPart[] = ["recentTurns", "summaries", "facts", "events", "similar"];

/**
 * Builds the memory context of one turn from the store, texts bounded by `RECALLED_TEXT_CHARS`. A
 * recalled text that states a fact's earlier value carries the correction in front of it (see
 * corrections.ts), so no line presents an old value as current. Reads only; never writes.
 */
export async function recallContext(store: BaseStore, request: RecallRequest): Promise<MemoryContext> {
  const { scope, limits } = request;
  const sessionId = scope.sessionId;
  const wants = (part: RecallPart) => !request.parts || request.parts.has(part);
  // Whether this session is thin matters only to the similar-message search.
  const thin = wants("similar") && (sessionId === undefined || !(await hasStoredAtLeast(store, namespaces.transcript({ ...scope, sessionId }), limits.thinSessionMessages)));
  const prefix = thin || sessionId === undefined ? namespaces.sessions(scope) : namespaces.transcript({ ...scope, sessionId });
  const searchedScope = thin ? "user" : "session";
  let vectorSearch: VectorSearch | undefined;
  const similarMessages = async () => {
    if (!request.pendingVector) {
      if (!request.embeddings) vectorSearch = "off";
      return searchSimilar(store, prefix, similarSearch);
    }
    const found = await queryVectorWithin(request.pendingVector, limits.vectorWaitMs, request.typicalVectorMs);
    vectorSearch = found.search;
    return searchSimilar(store, prefix, { ...similarSearch, queryVector: found.vector ?? null });
  };
  const similarSearch = {
    query: request.query,
    // A long message is shown by its excerpt: the store need not hand on more than that reads.
    textChars: excerptReadChars(RECALLED_TEXT_CHARS),
    limit: limits.similarTopK,
    maxCandidates: limits.maxCandidates,
    minVectorScore: limits.minVectorScore,
    excludeIds: request.excludeIds,
    embeddings: request.embeddings,
    graph: { user: { tenantId: scope.tenantId, userId: scope.userId }, ...(thin || sessionId === undefined ? {} : { sessionId }), options: limits.graph },
    categoryWeight: limits.categoryWeight,
    timeWindowWeight: limits.timeWindowWeight,
    ...(request.now ? { asOf: request.now } : {}),
  };
  const read = <T>(part: RecallPart, work: () => Promise<T[]>): Promise<T[]> => (wants(part) ? work() : Promise.resolve([]));
  // Every version of every fact: the current ones are shown, the earlier ones correct what else is recalled.
  const [recentTurns, summaries, allFacts, events, similar] = await Promise.all([
    read("recentTurns", () => recentStoredTurns(store, scope, request.excludeIds, limits)),
    read("summaries", () => latestSummaries(store, scope, limits.summaries).then(freshSummaries)),
    ALL_PARTS.some(wants) ? loadFacts(store, scope) : Promise.resolve([]),
    read("events", () => importantEvents(store, scope, { minImportance: limits.importantMinScore, limit: limits.importantEvents, window: limits.maxCandidates })),
    read("similar", similarMessages),
  ]);
  const facts = currentFacts(allFacts, request.now ?? new Date());
  const corrections = correctionsOf(allFacts, facts);
  const correct = correctionMarker(corrections);
  const corrected = <T extends { text: string }>(item: T): T => {
    const text = correct(item.text);
    return text === item.text ? item : { ...item, text };
  };
  const cut = similar.some((m) => m.text.length > RECALLED_TEXT_CHARS) ? excerpter(request.query) : undefined;
  return {
    recentTurns: recentTurns.map(withBoundedText).map(corrected),
    summaries: summaries.map(corrected),
    facts: wants("facts") ? facts : [],
    events: events.map(withBoundedText).map(corrected),
    // A long message is shown by the part that matches the query, not by its first characters.
    similar: similar.map((m) => corrected(cut === undefined || m.text.length <= RECALLED_TEXT_CHARS ? m : { ...m, text: cut(m.text, RECALLED_TEXT_CHARS) })),
    searchedScope,
    ...(vectorSearch && request.query.trim() ? { vectorSearch } : {}),
    ...(corrections.length > 0 ? { corrections } : {}),
  };
}

/** `item` with its text cut to `RECALLED_TEXT_CHARS` (the same object when it is short enough). */
function withBoundedText<T extends { text: string }>(item: T): T {
  return item.text.length <= RECALLED_TEXT_CHARS ? item : { ...item, text: truncate(item.text, RECALLED_TEXT_CHARS) };
}

async function recentStoredTurns(
  store: BaseStore,
  scope: Pick<MemoryScope, "tenantId" | "userId">,
  excludeIds: ReadonlySet<string>,
  limits: RecallLimits,
): Promise<TranscriptRecord[]> {
  // Offline replies are stored but not recalled; read twice as many so that they do not crowd out turns.
  const items = await newestItems(store, namespaces.sessions(scope), {
    limit: 2 * limits.recentTurns + excludeIds.size,
    // `withBoundedText` reads the first RECALLED_TEXT_CHARS characters and whether there are more.
    textChars: RECALLED_TEXT_CHARS + 1,
  });
  const turns = valuesOf<TranscriptRecord>(items.filter((item) => isRecallable(item.value))).filter((turn) => !excludeIds.has(turn.id));
  return newestFirst(turns, (t) => t.createdAt).slice(0, limits.recentTurns);
}
