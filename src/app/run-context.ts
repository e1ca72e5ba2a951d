import { CallbackManager } from "@langchain/core/callbacks/manager";
import type { RunnableConfig } from "@langchain/core/runnables";
import { AsyncLocalStorageProviderSingleton, _CONTEXT_VARIABLES_KEY } from "@langchain/core/singletons";

/**
 * Light run contexts for the facade's runs.
 *
 * LangChain starts every runnable (in a turn: each LangGraph node, its channel writes, each
 * branch, about 44 in all) through `AsyncLocalStorageProviderSingleton.runWithConfig`, which keeps
 * the runnable's config where what it calls finds it (`getRunnableConfig`). When no LangSmith
 * tracer is configured, it builds a langsmith `RunTree` with tracing disabled only to hold that
 * config: a UUIDv7 from the random source, timestamps, environment lookups, some 35 µs each,
 * about a tenth of a turn's CPU. A run whose config carries `LIGHT_RUN_CONTEXT` gets a plain holder
 * with the same fields instead; with a tracer, and for every other run in the process, LangChain
 * does what it always does.
 */

/** The key LangChain keeps a runnable's config under in its run context (`getRunnableConfig` reads it). */
const LC_CHILD_KEY = Symbol.for("lc:child_config");
/** The `configurable` key that asks for light run contexts; an object value stays out of checkpoint metadata. */
const LIGHT_KEY = "memory_graph_run_context";
const LIGHT = Object.freeze({});

type RunContext = Record<PropertyKey, unknown>;

let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  const provider = AsyncLocalStorageProviderSingleton;
  const runWithConfig = provider.runWithConfig.bind(provider);
  provider.runWithConfig = <T>(config: RunnableConfig | undefined, callback: () => T, avoidCreatingRootRunTree?: boolean): T => {
    if (avoidCreatingRootRunTree === true || config?.configurable?.[LIGHT_KEY] !== LIGHT || traced(config)) {
      return runWithConfig(config, callback, avoidCreatingRootRunTree);
    }
    const storage = provider.getInstance();
    const previous = storage.getStore() as RunContext | undefined;
    const context: RunContext = { extra: { [LC_CHILD_KEY]: config }, tracingEnabled: false };
    if (previous?.[_CONTEXT_VARIABLES_KEY] !== undefined) context[_CONTEXT_VARIABLES_KEY] = previous[_CONTEXT_VARIABLES_KEY];
    return storage.run(context, callback);
  };
}

/** Whether LangChain would hand this run a tracer's run tree (as `runWithConfig` decides). */
function traced(config: RunnableConfig): boolean {
  const manager = CallbackManager._configureSync(config.callbacks, undefined, config.tags, undefined, config.metadata);
  return manager?.handlers.some((handler) => handler.name === "langchain_tracer") === true;
}

/** `config` asking for light run contexts (installed on first use): see the module comment. */
export function withLightRunContext<C extends { configurable?: Record<string, unknown> }>(config: C): C {
  install();
  return { ...config, configurable: { ...config.configurable, [LIGHT_KEY]: LIGHT } };
}
