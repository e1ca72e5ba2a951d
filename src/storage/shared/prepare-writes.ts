import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { Operation, PutOperation } from "@langchain/langgraph-checkpoint";
import type { VectorSearchOperation } from "../../memory/ports/store.js";
import { embedOrSkip } from "../../memory/ranking/embed-or-skip.js";
import { recordTraits, type DocTraits } from "../../memory/ranking/document-text.js";
import { tokenize } from "../../memory/ranking/tokenize.js";
import { indexTextOf } from "./index-text.js";

/** A put with what our stores index for it: its text, its terms and (when embedding) its vector. */
export interface PreparedPut {
  op: PutOperation;
  text: string;
  /** Our tokenizer's output, space-joined, as the full-text index stores it. */
  terms: string;
  /** What ranking knows of the record beside its terms (role, speaker, asks), stored in plain columns. */
  traits?: DocTraits;
  vector?: number[];
}

/** Texts embedded per call: a large batch (an import) is embedded in parts, the event loop free between them. */
const EMBED_CHUNK = 128;
/** Longest stretch of synchronous preparation between two yields to the event loop. */
const SLICE_MS = 10;

/** A function that yields to the event loop when `SLICE_MS` have passed since it last did. */
function timeSlice(): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < SLICE_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    since = performance.now();
  };
}

/**
 * The index text, terms, traits (`recordTraits`) and vector of every put in a batch that is indexed (`index !== false`),
 * embedded once, at write time, in calls of at most `EMBED_CHUNK` texts (none for a call that
 * fails: see `embedOrSkip`). Deletes and unindexed puts are left out. A large batch yields to the
 * event loop every few milliseconds, so that an import does not hold other requests up.
 */
export async function preparePuts(
  operations: readonly Operation[],
  options: { indexFields?: string[]; embeddings?: EmbeddingsInterface },
): Promise<Map<Operation, PreparedPut>> {
  const prepared = new Map<Operation, PreparedPut>();
  const slice = timeSlice();
  for (const op of operations) {
    if (!("value" in op) || op.value === null || op.index === false) continue;
    const text = indexTextOf(op.value, op.index ?? options.indexFields);
    prepared.set(op, { op, text, terms: tokenize(text).join(" "), traits: recordTraits(op.value) });
    await slice();
  }
  const embeddable = [...prepared.values()].filter((p) => p.text.trim() !== "");
  const embeddings = options.embeddings;
  // In chunks, yielding between them: a local embedder computes synchronously.
  for (let from = 0; embeddings && from < embeddable.length; from += EMBED_CHUNK) {
    const chunk = embeddable.slice(from, from + EMBED_CHUNK);
    const vectors = await embedOrSkip("documents", () => embeddings.embedDocuments(chunk.map((p) => p.text)));
    if (vectors) chunk.forEach((p, i) => (p.vector = vectors[i]));
    await slice();
  }
  return prepared;
}

/**
 * One query vector per distinct search query of a batch: the one the operation carries
 * (`VectorSearchOperation`; `null`: none, rank lexically), else embedded here (none without
 * embeddings, or where embedding failed).
 */
export async function embedQueries(operations: readonly Operation[], embeddings: EmbeddingsInterface | undefined): Promise<Map<string, number[]>> {
  const vectors = new Map<string, number[]>();
  const given = new Set<string>();
  for (const op of operations as readonly (Operation & VectorSearchOperation)[]) {
    if (!("namespacePrefix" in op) || !op.query || op.queryVector === undefined) continue;
    given.add(op.query);
    if (op.queryVector !== null && !vectors.has(op.query)) vectors.set(op.query, [...op.queryVector]);
  }
  if (!embeddings) return vectors;
  for (const op of operations) {
    if (!("namespacePrefix" in op) || !op.query || vectors.has(op.query) || given.has(op.query)) continue;
    const query = op.query;
    const vector = await embedOrSkip("query", () => embeddings.embedQuery(query));
    if (vector) vectors.set(query, vector);
  }
  return vectors;
}
