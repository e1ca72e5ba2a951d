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

/** Texts embedded per call: a large batch (an import) is embedded in parts, the event loop free between them. */
const EMBED_CHUNK = 128;

/**
 * The vectors of `texts`, embedded by `embed` in calls of at most `EMBED_CHUNK` texts, with
 * `between` awaited after each call. A call that gives back nothing (`embedOrSkip` after a failure)
 * leaves its texts without vectors; a call that throws throws.
 */
export async function embedInChunks(
  texts: readonly string[],
  embed: (chunk: string[]) => Promise<number[][] | undefined>,
  between?: () => Promise<void>,
): Promise<(number[] | undefined)[]> {
  const vectors: (number[] | undefined)[] = [];
  for (let from = 0; from < texts.length; from += EMBED_CHUNK) {
    const chunk = texts.slice(from, from + EMBED_CHUNK);
    const embedded = await embed(chunk);
    chunk.forEach((_, i) => vectors.push(embedded?.[i]));
    await between?.();
  }
  return vectors;
}
