import type { WeightedSearchOptions } from "../../memory/ports/store.js";
import { BaseStore, type Item, type SearchItem } from "@langchain/langgraph-checkpoint";
import { assertTenantNamespace } from "./namespace.js";
import type { RefreshingRead, TtlPutOperation } from "./ttl.js";

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
