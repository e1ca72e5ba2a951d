import type { ListNamespacesOperation, MatchCondition, Operation } from "@langchain/langgraph-checkpoint";
import { BaseStore, type Item, type SearchItem } from "@langchain/langgraph-checkpoint";
import { invalidInput, MemoryGraphError, type ErrorCode } from "../../errors.js";
import type { WeightedSearch, WeightedSearchOptions } from "../../memory/ports/store.js";
import { validateFilter } from "./filter-grammar.js";
import { assertTenantNamespace } from "./namespace.js";
import { assertMinutes, type RefreshingRead, type TtlPutOperation } from "./ttl.js";

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

  /** As `BaseStore.search`; recall's options (`labelWeights`, `withNeighbours`, `textChars`) reach the search operation (see `RecallSearchOptions`). */
  override async search(namespacePrefix: string[], options?: WeightedSearchOptions & { refreshTtl?: boolean }): Promise<SearchItem[]> {
    assertTenantNamespace(namespacePrefix, { field: "namespacePrefix" });
    const { labelWeights, withNeighbours, textChars, refreshTtl } = options ?? {};
    if (labelWeights === undefined && withNeighbours === undefined && textChars === undefined && refreshTtl === undefined) return super.search(namespacePrefix, options);
    const { filter, limit = 10, offset = 0, query } = options ?? {};
    return (await this.batch([{ namespacePrefix, filter, limit, offset, query, labelWeights, withNeighbours, textChars, refreshTtl }]))[0] ?? [];
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
