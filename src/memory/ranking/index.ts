/** Lexical and vector ranking shared by every store and by recall: pure, no I/O. */
export { MAX_RANKED_CHARS, rankedPart, tokenize, termFrequencies } from "./tokenize.js";
export { stem } from "./stem.js";
export { ENGLISH_STOP_WORDS, THAI_STOP_WORDS } from "./stop-words.js";
export { Bm25Index, bm25Rank, type Bm25Options, type ScoredId } from "./bm25.js";
export { fuseRankings, normalizeScores, type FusedResult, type RankedList } from "./fusion.js";
export { HashedNgramEmbeddings, cosine, type HashedNgramOptions } from "./hash-embedder.js";
export { dateWords, recordIndexText, recordTraits, type DocTraits } from "./document-text.js";
export {
  addNeighbourContext,
  expansionTerms,
  rankHybrid,
  type HybridOptions,
  type HybridResult,
  type LexicalSource,
} from "./hybrid.js";
export { RecallIndex } from "./recall-index.js";
