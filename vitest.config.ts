import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The checkpointer conformance suite (@langchain/langgraph-checkpoint-validation) needs globals.
    globals: true,
    include: ["test/**/*.test.ts"],
    // Brings up PostgreSQL, Redis and pgvector when a fresh machine lacks them (idempotent, fast).
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
