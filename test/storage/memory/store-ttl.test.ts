import { InMemoryStore, type SearchItem, type SearchOperation } from "@langchain/langgraph-checkpoint";
import { TtlMemoryStore } from "../../../src/storage/memory/store.js";
import { describeStoreContract } from "../store-contract.js";
import { describeStoreTtl } from "../store-ttl-cases.js";

/** Every item the store holds, expired or not: InMemoryStore's own batch, past the TTL layer. */
async function storedRows(store: TtlMemoryStore): Promise<number> {
  const raw = InMemoryStore.prototype.batch as (this: InMemoryStore, ops: SearchOperation[]) => Promise<SearchItem[][]>;
  const [items] = await raw.call(store, [{ namespacePrefix: [], limit: 10_000, offset: 0 }]);
  return items?.length ?? 0;
}

describeStoreContract("TtlMemoryStore", async () => new TtlMemoryStore(), { textSearch: false, tenantRequired: false, newestFirst: false, strictFilters: false, orderedBatch: false });

describeStoreTtl(
  "memory",
  async (ttl) => {
    const store = new TtlMemoryStore({ ttl });
    return { store, storedRows: () => storedRows(store) };
  },
  { textSearch: false, listsEmptied: true },
);
