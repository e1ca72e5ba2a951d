import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The checkpointer conformance suite (@langchain/langgraph-checkpoint-validation) needs globals.
    globals: true,
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
