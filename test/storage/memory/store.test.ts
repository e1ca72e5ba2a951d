import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import { describeStoreContract } from "../store-contract.js";

// LangGraph's own store, as it is: it enforces no tenant and ignores text queries without an index.
describeStoreContract("InMemoryStore", async () => new InMemoryStore(), { textSearch: false, tenantRequired: false, newestFirst: false, strictFilters: false, orderedBatch: false });
