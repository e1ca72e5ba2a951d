import { NODE } from "../state/node-names.js";
import type { GraphDeps } from "./deps.js";

/**
 * Where a turn's new user message is written: once, with its search index, as early as that waits
 * on no embeddings provider. Without embeddings (the index is lexical, made in process) ingest_prompt
 * writes it; with them call_model does, starting the write before the model call and awaiting it
 * before the reply is written, so that no embedding stands before the first token. Either way the
 * message is stored before its reply: a process that dies in between keeps it, and a retry with the
 * same `messageId` answers it instead of writing it again. A regeneration (its message is stored)
 * and an incognito turn (`remember: false`) write none.
 */
export function userRowWriter(deps: Pick<GraphDeps, "embeddings">): typeof NODE.ingestPrompt | typeof NODE.callModel {
  return deps.embeddings ? NODE.callModel : NODE.ingestPrompt;
}
