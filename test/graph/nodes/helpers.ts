import { HumanMessage } from "@langchain/core/messages";
import type { BaseStore } from "@langchain/langgraph";
import { withMeta } from "../../../src/messages/message-meta.js";
import { saveTranscriptMessage } from "../../../src/memory/transcript.js";
import type { TurnInfo } from "../../../src/graph/state/state.js";
import { scope, stateOf } from "../../support/deps.js";

/** A state in the middle of a turn whose user message `text` is already ingested and stored. */
export async function midTurnState(store: BaseStore, text: string, extra: Parameters<typeof stateOf>[0] = {}, id = "h1") {
  const createdAt = "2026-11-01T10:00:00.000Z";
  const human = withMeta(new HumanMessage({ id, content: text }), { parentId: null, createdAt });
  await saveTranscriptMessage(store, scope, { id, role: "user", text, parentId: null, sessionId: scope.sessionId, createdAt });
  const turn: TurnInfo = { messageId: id, text, startedAt: createdAt, regenerated: false, id: "turn-1", replyId: null, model: null, sessionExpired: false };
  return stateOf({ input: { ...scope, message: text }, messages: [human], turn, ...extra });
}
