import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { messageOf } from "../errors.js";
import { log } from "../logger.js";
import { warmLanguageTools } from "../memory/language-tools.js";
import { warmRecall, warmStoreReads } from "../memory/recall-warm-up.js";
import type { OpenStreams } from "../server/open-streams.js";

/** How long after listening the warm-up starts: a request waiting to be accepted goes first. */
const WARM_AFTER_MS = 50;

/**
 * The service's fetch handler counting the requests being answered (a streamed answer until its
 * stream ends), and a warm-up that `start` schedules once the server listens and that runs only
 * while no request is being answered and the service is not draining: recall's restore and ranking
 * compiled on a made-up conversation (`warmRecall`), the store's reads of a user's index made once
 * (`warmStoreReads`; a failure is logged and the warm-up goes on), then the language tools loaded
 * (`warmLanguageTools`). A turn that needs a tool first loads it itself, and no turn waits for the rest.
 */
export function warmUpBetweenRequests<A extends unknown[]>(
  fetch: (request: Request, ...rest: A) => Response | Promise<Response>,
  streams: OpenStreams,
  draining: () => boolean,
  store: BaseStore,
): { fetch: (request: Request, ...rest: A) => Promise<Response>; start: () => void } {
  let answering = 0;
  const idle = () => answering === 0 && streams.size === 0 && !draining();
  return {
    fetch: async (request, ...rest) => {
      answering += 1;
      try {
        return await fetch(request, ...rest);
      } finally {
        answering -= 1;
      }
    },
    start: () => {
      const warm = async () => {
        // Recall first: every user's first recall runs it, while a language tool is loaded by the first turn that needs it.
        const recallMs = await warmRecall(idle);
        const storeMs = await warmStoreReads(store, idle).catch((error: unknown) => void log.warn("server.warm_up_failed", { step: "store_reads", error: messageOf(error) }));
        log.info("server.warmed", { recall_ms: recallMs, store_ms: storeMs, language_tools_ms: await warmLanguageTools(idle) });
      };
      setTimeout(() => void warm(), WARM_AFTER_MS).unref();
    },
  };
}
