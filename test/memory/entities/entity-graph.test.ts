import { InMemoryStore } from "@langchain/langgraph";
import { SqliteStore } from "../../../src/storage/sqlite/store.js";
import { describeEntityGraphContract, graphSnapshot } from "../../support/entity-graph-contract.js";

describeEntityGraphContract("sqlite", () => SqliteStore.open(":memory:"));
describeEntityGraphContract("memory", () => new InMemoryStore());

it("SQLite and the in-memory engine hold the same graph, walk it alike and rank alike", async () => {
  const sqlite = await graphSnapshot(() => SqliteStore.open(":memory:"));
  const memory = await graphSnapshot(() => new InMemoryStore());
  expect(sqlite.walk.length).toBeGreaterThan(0);
  expect(memory).toEqual(sqlite);
});
