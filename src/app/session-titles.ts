import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseStore } from "@langchain/langgraph";
import { messageOf } from "../errors.js";
import { log } from "../logger.js";
import type { MemoryScope } from "../memory/scope.js";
import { hasSessionTitle, saveSessionTitle } from "../memory/session-list.js";
import { titleWithModel } from "../models/structured.js";
import { CALL, usageOfReply } from "../models/usage.js";
import { countTokens } from "../telemetry.js";

/**
 * Gives a session the model's title after its first answered turn (upkeep: the reply is out). A
 * session that has one keeps it; a model that fails leaves none (logged), and the session is
 * listed under its first user message until a later turn's title succeeds. The title's tokens go to
 * the token metric (`session_title`): it is made after the turn's result.
 */
export async function titleSession(store: BaseStore, model: BaseChatModel, scope: MemoryScope, turn: { user: string; reply: string }): Promise<void> {
  if (await hasSessionTitle(store, scope)) return;
  try {
    const title = await titleWithModel(
      model,
      [
        { id: "user", role: "user", text: turn.user },
        { id: "assistant", role: "assistant", text: turn.reply },
      ],
      (reply) => countTokens(usageOfReply(CALL.sessionTitle, reply), scope.tenantId),
    );
    await saveSessionTitle(store, scope, title);
  } catch (error) {
    log.warn("session_title_fallback", { sessionId: scope.sessionId, error: messageOf(error) });
  }
}
