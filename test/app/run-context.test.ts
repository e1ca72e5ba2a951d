import { getContextVariable, setContextVariable } from "@langchain/core/context";
import { RunnableLambda } from "@langchain/core/runnables";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemoryGraph } from "../../src/app/create-memory-graph.js";
import { withLightRunContext } from "../../src/app/run-context.js";
import { setLogLevel } from "../../src/logger.js";

/** Whether a run context is a langsmith run tree (what LangChain builds for every runnable). */
const isRunTree = (context: unknown) => typeof context === "object" && context !== null && "dotted_order" in context;

/** The run contexts LangChain enters while `work` runs. */
async function contextsOf(work: () => Promise<unknown>): Promise<unknown[]> {
  const storage = AsyncLocalStorageProviderSingleton.getInstance();
  const run = vi.spyOn(storage, "run");
  try {
    await work();
    return run.mock.calls.map(([context]) => context);
  } finally {
    run.mockRestore();
  }
}

describe("light run contexts", () => {
  afterEach(() => vi.restoreAllMocks());

  it("give a runnable, and what it calls, the run's config, and context variables set before", async () => {
    const inner = RunnableLambda.from(() => ({
      seen: AsyncLocalStorageProviderSingleton.getRunnableConfig()?.configurable?.user as unknown,
      variable: getContextVariable<unknown>("tenant"),
    }));
    const outer = RunnableLambda.from(async () => inner.invoke(null));
    setContextVariable("tenant", "acme");
    const contexts = await contextsOf(async () => {
      expect(await outer.invoke(null, withLightRunContext({ configurable: { user: "u1" } }))).toEqual({ seen: "u1", variable: "acme" });
    });
    expect(contexts.length).toBeGreaterThan(0);
    expect(contexts.some(isRunTree)).toBe(false);
  });

  it("leave other runs as LangChain runs them", async () => {
    const lambda = RunnableLambda.from(() => AsyncLocalStorageProviderSingleton.getRunnableConfig()?.configurable?.user as unknown);
    withLightRunContext({});
    const contexts = await contextsOf(async () => expect(await lambda.invoke(null, { configurable: { user: "u2" } })).toBe("u2"));
    expect(contexts.some(isRunTree)).toBe(true);
  });

  it("are what a turn of the memory graph runs in when tracing is off", async () => {
    setLogLevel("silent");
    const graph = await createMemoryGraph({ backend: "memory", chatModel: null });
    try {
      const contexts = await contextsOf(async () => {
        const result = await graph.runTurn({ tenantId: "t1", userId: "u1", sessionId: "s1", message: "My name is Anong" });
        expect(result.status).toBe("OK");
        await graph.settled();
      });
      expect(contexts.length).toBeGreaterThan(20);
      expect(contexts.some(isRunTree)).toBe(false);
    } finally {
      await graph.close();
    }
  });
});
