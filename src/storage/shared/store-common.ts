import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import { BaseStore, type Item, type ListNamespacesOperation, type MatchCondition, type Operation, type PutOperation, type SearchItem } from "@langchain/langgraph-checkpoint";
import { invalidInput, MemoryGraphError, type ErrorCode } from "../../errors.js";
import type { DeferredVectorPut, VectorSearchOperation, WeightedSearch, WeightedSearchOptions } from "../../memory/ports/store.js";
import { recordIndexText, recordTraits, type DocTraits } from "../../memory/ranking/document-text.js";
import { embedInChunks, embedOrSkip } from "../../memory/ranking/embed-or-skip.js";
import { recordTerms } from "../../memory/ranking/event-marker.js";
import { validateFilter } from "./filter-grammar.js";
import { assertTenantNamespace } from "./namespace.js";
import { assertMinutes, type RefreshingRead, type StoreTtlConfig, type TtlPutOperation } from "./ttl.js";

/**
 * What every store of ours does with a batch before its engine sees it: each operation checked
 * (the tenant of each namespace, each field), then each write prepared (the text it indexes, that
 * text's terms, traits and vector, its TTL). Every engine refuses and indexes alike.
 */

/**
 * What every store of ours checks before an engine sees anything: the tenant of each namespace
 * (`TenantStore`, the base of our stores) and each field of each operation of a batch
 * (`validateOperation`), so that a bad batch changes nothing and every engine refuses it alike.
 */

/**
 * The base of our stores: every namespace begins with a tenant. `BaseStore`'s convenience
 * methods validate namespaces with their own error before `batch` runs, so these overrides check
 * first and callers always get our `NAMESPACE_TENANT_REQUIRED` / `INVALID_NAMESPACE` errors.
 * They also carry LangGraph's TTL arguments into the operation: `put(…, index, { ttl })` (as
 * `PostgresStore.put`), `get(…, { refreshTtl })` and `search(…, { refreshTtl })`.
 */
export abstract class TenantStore extends BaseStore {
  override async get(namespace: string[], key: string, options?: { refreshTtl?: boolean }): Promise<Item | null> {
    assertTenantNamespace(namespace);
    if (options?.refreshTtl === undefined) return super.get(namespace, key);
    const op: RefreshingRead = { namespace, key, refreshTtl: options.refreshTtl };
    return (await this.batch([op]))[0] ?? null;
  }

  override async put(namespace: string[], key: string, value: Record<string, unknown>, index?: false | string[], options?: { ttl?: number | null }): Promise<void> {
    assertTenantNamespace(namespace);
    if (options?.ttl === undefined) return super.put(namespace, key, value, index);
    const op: TtlPutOperation = { namespace, key, value, index, ttl: options.ttl };
    await this.batch([op]);
  }

  override async delete(...args: Parameters<BaseStore["delete"]>): Promise<void> {
    assertTenantNamespace(args[0]);
    return super.delete(...args);
  }

  /**
   * As `BaseStore.search`; recall's options (`labelWeights`, `asksForList`, `asksForAggregate`, `categoryTerms`,
   * `categoryWeight`, `timeTerms`, `withNeighbours`, `textChars`) reach the search operation (see `RecallSearchOptions`).
   */
  override async search(namespacePrefix: string[], options?: WeightedSearchOptions & { refreshTtl?: boolean }): Promise<SearchItem[]> {
    assertTenantNamespace(namespacePrefix, { field: "namespacePrefix" });
    const { labelWeights, asksForList, asksForAggregate, categoryTerms, categoryWeight, timeTerms, withNeighbours, textChars, refreshTtl } = options ?? {};
    const recall = { labelWeights, asksForList, asksForAggregate, categoryTerms, categoryWeight, timeTerms, withNeighbours, textChars, refreshTtl };
    if (Object.values(recall).every((value) => value === undefined)) return super.search(namespacePrefix, options);
    const { filter, limit = 10, offset = 0, query } = options ?? {};
    return (await this.batch([{ namespacePrefix, filter, limit, offset, query, ...recall }]))[0] ?? [];
  }

  override async listNamespaces(...args: Parameters<BaseStore["listNamespaces"]>): Promise<string[][]> {
    assertTenantNamespace(args[0]?.prefix, { field: "prefix", allowWildcards: true });
    return super.listNamespaces(...args);
  }
}

function invalid(code: Extract<ErrorCode, "INVALID_INPUT" | "INVALID_KEY" | "INVALID_VALUE">, field: string, message: string): MemoryGraphError {
  return new MemoryGraphError(code, `${field}: ${message}`, { kind: "user", field });
}

function assertCount(value: unknown, field: string): void {
  if (value !== undefined && (!Number.isInteger(value) || (value as number) < 0)) {
    throw invalid("INVALID_INPUT", field, "must be an integer ≥ 0");
  }
}

function prefixConditions(op: ListNamespacesOperation): MatchCondition[] {
  return (op.matchConditions ?? []).filter((c) => c.matchType === "prefix");
}

/**
 * Checks one batch operation before anything runs, so a bad batch changes nothing: namespaces
 * and prefixes begin with a tenant (a list operation needs a prefix condition with one), keys are
 * non-empty strings, values are JSON objects or null, filters keep the grammar (`validateFilter`), counts are integers ≥ 0, `textChars` an integer ≥ 1, a put's `ttl` minutes > 0 or null, a read's `refreshTtl` a boolean.
 */
export function validateOperation(op: Operation): void {
  if ("namespacePrefix" in op) {
    assertTenantNamespace(op.namespacePrefix, { field: "namespacePrefix" });
    validateFilter(op.filter);
    assertCount(op.limit, "limit");
    assertCount(op.offset, "offset");
    if (op.query !== undefined && typeof op.query !== "string") throw invalid("INVALID_INPUT", "query", "must be a string");
    const { textChars } = op as WeightedSearch;
    if (textChars !== undefined && (!Number.isInteger(textChars) || textChars < 1)) throw invalid("INVALID_INPUT", "textChars", "must be an integer ≥ 1");
    validateTtlFields(op);
    return;
  }
  if ("namespace" in op) {
    assertTenantNamespace(op.namespace);
    if (typeof op.key !== "string" || op.key === "") throw invalid("INVALID_KEY", "key", "must be a non-empty string");
    if ("value" in op) {
      const { value } = op;
      if (value !== null && (typeof value !== "object" || Array.isArray(value))) {
        throw invalid("INVALID_VALUE", "value", "must be a JSON object or null");
      }
    }
    validateTtlFields(op);
    return;
  }
  const prefixes = prefixConditions(op);
  if (prefixes.length === 0) {
    throw new MemoryGraphError("NAMESPACE_TENANT_REQUIRED", "prefix: listing namespaces needs a prefix that begins with a tenant id", {
      kind: "user",
      field: "prefix",
    });
  }
  for (const condition of prefixes) assertTenantNamespace(condition.path, { field: "prefix", allowWildcards: true });
  assertCount(op.maxDepth, "maxDepth");
  assertCount(op.limit, "limit");
  assertCount(op.offset, "offset");
}

/** Checks an operation's `ttl` (a put's: minutes > 0 or null) and `refreshTtl` (a read's: boolean). */
export function validateTtlFields(op: Operation): void {
  if ("value" in op) {
    const { ttl } = op as TtlPutOperation;
    if (ttl !== null) assertMinutes(ttl, "ttl");
    return;
  }
  const { refreshTtl } = op as RefreshingRead;
  if (refreshTtl !== undefined && typeof refreshTtl !== "boolean") throw invalidInput("refreshTtl", "must be a boolean");
}

/**
 * What a store writes for a put beside its value, made once for every engine: the text it indexes
 * (`indexTextOf`), that text's terms and traits, its vector (`preparePuts`) and its TTL
 * (`ttlMinutesOf`); and the query vectors of a batch's searches (`embedQueries`).
 */

/** A put with what our stores index for it: its text, its terms and (when embedding) its vector. */
export interface PreparedPut {
  op: PutOperation;
  text: string;
  /** The record's terms (`recordTerms`: our tokenizer's output, with the event marker), space-joined, as the full-text index stores it. */
  terms: string;
  /** What ranking knows of the record beside its terms (role, speaker, asks), stored in plain columns. */
  traits?: DocTraits;
  vector?: number[];
}

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
 * embedded once, at write time, in calls of at most `EMBED_CHUNK` texts (`embedInChunks`) (none for a call that
 * fails: see `embedOrSkip`; none for a put with `deferVector`, left to `embedDeferred`). Deletes
 * and unindexed puts are left out. A large batch yields to the event loop every few milliseconds,
 * so that an import does not hold other requests up.
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
    prepared.set(op, { op, text, terms: recordTerms(op.value, text).join(" "), traits: recordTraits(op.value) });
    await slice();
  }
  const embeddable = [...prepared.values()].filter((p) => p.text.trim() !== "" && (p.op as DeferredVectorPut).deferVector !== true);
  const embeddings = options.embeddings;
  if (embeddings) {
    // Yielding between chunks: a local embedder computes synchronously.
    const vectors = await embedInChunks(embeddable.map((p) => p.text), (texts) => embedOrSkip("documents", () => embeddings.embedDocuments(texts)), slice);
    embeddable.forEach((p, i) => (p.vector = vectors[i]));
  }
  return prepared;
}

/**
 * The vectors of stored values (`embedDeferred`), from the text a put of each indexes (`indexTextOf`),
 * in calls of at most `EMBED_CHUNK` texts; undefined for a value with no text. Throws when a call fails.
 */
export async function embedValues(values: readonly Record<string, unknown>[], options: { indexFields?: string[]; embeddings: EmbeddingsInterface }): Promise<(number[] | undefined)[]> {
  const texts = values.map((value) => indexTextOf(value, options.indexFields));
  const embeddable = texts.flatMap((text, i) => (text.trim() === "" ? [] : [i]));
  const embedded = await embedInChunks(embeddable.map((i) => texts[i] ?? ""), (chunk) => options.embeddings.embedDocuments(chunk));
  const vectors: (number[] | undefined)[] = texts.map(() => undefined);
  embeddable.forEach((i, n) => (vectors[i] = embedded[n]));
  return vectors;
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

/** The TTL in minutes a put gives its item: its own `ttl`, else the store's default; null for none. */
export function ttlMinutesOf(op: PutOperation, config: StoreTtlConfig | undefined): number | null {
  const { ttl } = op as TtlPutOperation;
  return ttl === undefined ? (config?.defaultTtl ?? null) : ttl;
}

/**
 * Which text of a value is indexed (for full-text search and for its embedding). With `fields`,
 * the strings at those paths ("a.b", "list[*].c", "list[0]"; numbers and booleans as text);
 * without, when the value has a string `text` field, `recordIndexText` (the text with its
 * `speaker` and the date of its `createdAt`), else every string inside the value.
 * Parts are joined by newlines; the result may be empty.
 */
export function indexTextOf(value: Record<string, unknown>, fields: readonly string[] | undefined): string {
  if (fields && fields.length > 0) return fields.flatMap((path) => textsAt(value, path)).join("\n");
  return recordIndexText(value) ?? allStrings(value).join("\n");
}

function allStrings(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(allStrings);
  if (typeof value === "object" && value !== null) return Object.values(value).flatMap(allStrings);
  return [];
}

function textsAt(root: unknown, path: string): string[] {
  let current: unknown[] = [root];
  for (const segment of path.split(".")) {
    const match = /^([^[\]]*)((?:\[(?:\*|-?\d+)\])*)$/.exec(segment);
    if (!match) return [];
    const name = match[1] ?? "";
    const indexes = [...(match[2] ?? "").matchAll(/\[(\*|-?\d+)\]/g)].map((m) => m[1] ?? "*");
    current = current.flatMap((node) => (name === "" ? [node] : childOf(node, name)));
    for (const index of indexes) current = current.flatMap((node) => elementsOf(node, index));
  }
  return current.flatMap((node) => {
    if (typeof node === "string") return [node];
    if (typeof node === "number" || typeof node === "boolean") return [String(node)];
    return node === null || node === undefined ? [] : allStrings(node);
  });
}

function childOf(node: unknown, name: string): unknown[] {
  if (typeof node !== "object" || node === null || Array.isArray(node)) return [];
  const child = (node as Record<string, unknown>)[name];
  return child === undefined ? [] : [child];
}

function elementsOf(node: unknown, index: string): unknown[] {
  if (!Array.isArray(node)) return [];
  if (index === "*") return node;
  const i = Number(index);
  const element: unknown = node[i < 0 ? node.length + i : i];
  return element === undefined ? [] : [element];
}
