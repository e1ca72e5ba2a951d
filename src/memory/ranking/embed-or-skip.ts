import { messageOf } from "../../errors.js";
import { log } from "../../logger.js";

/**
 * Runs one embeddings call. When it fails (the embeddings model down, slow or refusing), the
 * fallback is taken on purpose: the failure is logged with its cause and `undefined` comes back,
 * so the caller goes on lexically — a write keeps its item without a vector, a search ranks by
 * text alone. As with every model call, an outage costs quality, never a turn.
 */
export async function embedOrSkip<T>(what: "documents" | "query", call: () => Promise<T>): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    log.warn("embeddings_fallback", { what, error: messageOf(error) });
    return undefined;
  }
}
