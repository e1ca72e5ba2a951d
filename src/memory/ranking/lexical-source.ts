/**
 * Where hybrid ranking reads documents from: a BM25 scorer over `tokenize` terms, the terms of a
 * document, and a document's neighbours (the items written just before and after it in the same
 * conversation). Every engine reads one through `indexSource` over a `RecallIndex`.
 */
export interface LexicalSource {
  /** BM25 scores (> 0) of at most `limit` best matching documents for `terms` (each distinct term once); `lengthNorm` is BM25's `b` when given. */
  score(terms: readonly string[], limit: number, lengthNorm?: number): Map<string, number>;
  /** The indexed terms of each id (absent ids may be left out). */
  termsOf(ids: readonly string[]): Map<string, readonly string[]>;
  /** For each id, which of `terms` it holds (each once; absent ids and ids holding none may be left out), when the source can tell without listing every term of the documents. */
  heldOf?(ids: readonly string[], terms: readonly string[]): Map<string, readonly string[]>;
  /** For each id, the ids of its neighbours (absent ids may be left out). */
  neighboursOf(ids: readonly string[]): Map<string, readonly string[]>;
  /** The share (0..1) of documents holding `term`, when the source knows it. */
  documentShare?(term: string): number;
  /** The number of indexed terms of each id, when the source knows it (absent ids may be left out). */
  lengthsOf?(ids: readonly string[]): Map<string, number>;
  /** The label of each id (e.g. the role of who said it), when the source knows it (unlabelled ids may be left out). */
  labelsOf?(ids: Iterable<string>): Map<string, string>;
  /** For each id that asks a question, the id written after it in its conversation (its answer), when the source knows it. */
  answersOf?(ids: Iterable<string>): Map<string, string>;
  /** The conversation (group) of each id, when the source knows it (absent ids may be left out). */
  groupsOf?(ids: Iterable<string>): Map<string, string>;
  /** Who said each id, by name, when the source knows it (ids without a speaker may be left out). */
  speakersOf?(ids: Iterable<string>): Map<string, string>;
}
