import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { BaseStore, Item } from "@langchain/langgraph-checkpoint";
import { bm25Rank, cosine, fuseRankings } from "./ranking/index.js";
import type { TranscriptRecord } from "./records.js";
import { isRankingStore, listAll, type RankedItem } from "./store-io.js";

/** A transcript message found for a query, with where it came from and why it was chosen. */
export interface SimilarMessage {
  id: string;
  role: TranscriptRecord["role"];
  text: string;
  sessionId: string;
  createdAt: string;
  score: number;
  ranking: { lexical?: number; vector?: number; fused: number };
}

export interface SimilarSearch {
  query: string;
  limit: number;
  maxCandidates: number;
  minVectorScore: number;
  excludeIds: ReadonlySet<string>;
  embeddings?: EmbeddingsInterface;
}

/**
 * Finds stored messages under `prefix` similar to the query. A store that ranks queries itself
 * does the work; for any other store, at most `maxCandidates` items are ranked here with the same
 * lexical ranker fused with vector similarity (vector hits below `minVectorScore` do not count).
 */
export async function searchSimilar(store: BaseStore, prefix: string[], search: SimilarSearch): Promise<SimilarMessage[]> {
  if (!search.query.trim()) return [];
  const wanted = search.limit + search.excludeIds.size;
  const hits = isRankingStore(store)
    ? ((await store.search(prefix, { query: search.query, limit: wanted })) as RankedItem[])
    : await rankHere(await listAll(store, prefix, { cap: search.maxCandidates }), search);
  return hits
    .filter((item) => !search.excludeIds.has(item.key))
    .slice(0, search.limit)
    .map((item) => toSimilar(item));
}

async function rankHere(candidates: Item[], search: SimilarSearch): Promise<RankedItem[]> {
  const docs = candidates.map((item) => ({ id: item.key, text: String((item.value as TranscriptRecord).text ?? "") }));
  const lists = [{ name: "lexical", results: bm25Rank(search.query, docs) }];
  if (search.embeddings && docs.length > 0) {
    const [queryVector, docVectors] = await Promise.all([
      search.embeddings.embedQuery(search.query),
      search.embeddings.embedDocuments(docs.map((d) => d.text)),
    ]);
    const vector = docs
      .map((doc, i) => ({ id: doc.id, score: cosine(queryVector, docVectors[i] ?? []) }))
      .filter((hit) => hit.score >= search.minVectorScore)
      .sort((a, b) => b.score - a.score);
    lists.push({ name: "vector", results: vector });
  }
  const byId = new Map(candidates.map((item) => [item.key, item]));
  const fused = fuseRankings(lists);
  const top = fused[0]?.score ?? 1;
  return fused.flatMap((hit) => {
    const item = byId.get(hit.id);
    if (!item) return [];
    const ranking = { lexical: hit.parts.lexical?.score, vector: hit.parts.vector?.score, fused: hit.score / top };
    return [{ ...item, score: ranking.fused, ranking }];
  });
}

function toSimilar(item: RankedItem): SimilarMessage {
  const record = item.value as TranscriptRecord;
  const score = item.score ?? 0;
  return {
    id: item.key,
    role: record.role,
    text: record.text,
    sessionId: record.sessionId,
    createdAt: record.createdAt,
    score,
    ranking: item.ranking ?? { fused: score },
  };
}
