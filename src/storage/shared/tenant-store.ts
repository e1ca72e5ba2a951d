import type { WeightedSearchOptions } from "../../memory/ports/store.js";
import { BaseStore, type Item, type SearchItem } from "@langchain/langgraph-checkpoint";
import { assertTenantNamespace } from "./namespace.js";

/**
 * The base of our stores: every namespace begins with a tenant. `BaseStore`'s convenience
 * methods validate namespaces with their own error before `batch` runs, so these overrides check
 * first and callers always get our `NAMESPACE_TENANT_REQUIRED` / `INVALID_NAMESPACE` errors.
 */
export abstract class TenantStore extends BaseStore {
  override async get(...args: Parameters<BaseStore["get"]>): Promise<Item | null> {
    assertTenantNamespace(args[0]);
    return super.get(...args);
  }

  override async put(...args: Parameters<BaseStore["put"]>): Promise<void> {
    assertTenantNamespace(args[0]);
    return super.put(...args);
  }

  override async delete(...args: Parameters<BaseStore["delete"]>): Promise<void> {
    assertTenantNamespace(args[0]);
    return super.delete(...args);
  }

  /** As `BaseStore.search`; recall's options (`labelWeights`, `withNeighbours`, `textChars`) reach the search operation (see `RecallSearchOptions`). */
  override async search(...args: Parameters<BaseStore["search"]>): Promise<SearchItem[]> {
    assertTenantNamespace(args[0], { field: "namespacePrefix" });
    const options: WeightedSearchOptions | undefined = args[1];
    if (options?.labelWeights === undefined && options?.withNeighbours === undefined && options?.textChars === undefined) return super.search(...args);
    const { filter, limit = 10, offset = 0, query, labelWeights, withNeighbours, textChars } = options;
    return (await this.batch([{ namespacePrefix: args[0], filter, limit, offset, query, labelWeights, withNeighbours, textChars }]))[0] ?? [];
  }

  override async listNamespaces(...args: Parameters<BaseStore["listNamespaces"]>): Promise<string[][]> {
    assertTenantNamespace(args[0]?.prefix, { field: "prefix", allowWildcards: true });
    return super.listNamespaces(...args);
  }
}
