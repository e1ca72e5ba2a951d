import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Callbacks } from "@langchain/core/callbacks/manager";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import { messageOf } from "../../errors.js";
import { log } from "../../logger.js";
import { textOf, withMeta } from "../../messages/message-meta.js";
import { assemblePrompt } from "../../memory/context.js";
import { LateWrites } from "../../memory/late-writes.js";
import { memoryPlanOf } from "../../memory/memory-plan.js";
import { EMPTY_CONTEXT, type MemoryContext } from "../../memory/recall.js";
import { saveAnswer } from "../../memory/session-continuity.js";
import { requireStore } from "../../memory/store-io.js";
import { messageToRecord, saveTranscriptMessage } from "../../memory/transcript.js";
import { isTransientError, withRetry } from "../../models/chat-model.js";
import { offlineReply } from "../../rules/offline-responder.js";
import { inModelSpan, modelNameOf } from "../../models/model-span.js";
import { usageOfReply, type ModelUsage } from "../../models/usage.js";
import { NODE } from "../state/node-names.js";
import type { MemoryState, MemoryUpdate } from "../state/state.js";
import { retryOptions, type GraphDeps } from "./deps.js";
import { userRowWriter } from "./user-row.js";
import { historyFor, humanForNode, scopeOfState, turnOf, windowUpdate } from "./turn.js";

export const OFFLINE_MODEL = "offline";

/**
 * call_model: assembles the prompt (system prompt, history, memory sections, the new message),
 * asks the chat model — retrying transient errors with backoff — or the offline responder when
 * no model is configured. The reply goes into the window, the node's own memory and the
 * transcript. A model error sets status ERROR and records it; nothing stored is removed.
 */
export function createCallModelNode(deps: GraphDeps) {
  return async function callModel(state: MemoryState, config: LangGraphRunnableConfig): Promise<MemoryUpdate> {
    const store = requireStore(config);
    const turn = turnOf(state);
    const scope = scopeOfState(state);
    const human = humanForNode(state);
    const recalled = state.recalled ?? EMPTY_CONTEXT;
    const remember = state.input?.remember !== false;
    const flags = runnerFlags(config);
    // With embeddings, the user's new message is written here, once, while the model answers (see `userRowWriter`).
    const userRow = settled(remember && !turn.regenerated && userRowWriter(deps) === NODE.callModel ? saveTranscriptMessage(store, scope, messageToRecord(human, scope.sessionId), { factKeys: deps.limits.recall.graph.factKeys }) : null);
    let text: string;
    let model: string;
    let usage: ModelUsage[] = [];
    if (deps.chatModel) {
      const chatModel = deps.chatModel;
      const prompt = assemblePrompt({
        systemPrompt: deps.systemPrompt,
        history: historyFor(state, NODE.callModel, deps.memoryMode, memoryPlanOf(state.input ?? {}, deps.limits.recall).sections.has("history")),
        memory: state.memoryText ?? { text: "", tokens: 0, sections: {}, droppedForBudget: 0 },
        newMessage: human,
        limits: deps.limits.context,
        corrections: recalled.corrections,
      });
      try {
        const invoke = () => askModel(chatModel, prompt, config, flags.streamReply, deps);
        const reply = await inModelSpan(NODE.callModel, modelNameOf(chatModel, deps.modelName), invoke, (answer) => usageOfReply(NODE.callModel, answer));
        text = textOf(reply);
        model = deps.modelName;
        usage = usageOfReply(NODE.callModel, reply);
      } catch (error) {
        const message = messageOf(error);
        log.error("model_error", { node: NODE.callModel, error: message });
        await userRow();
        return {
          status: "ERROR",
          errors: [{ node: NODE.callModel, code: "MODEL_ERROR", message, turnId: turn.id }],
          nodeMessages: { [NODE.callModel]: [human] },
        };
      }
    } else {
      text = offlineAnswer(turn.text, recalled, deps.now());
      model = OFFLINE_MODEL;
      if (flags.streamReply) config.writer?.({ [REPLY_TOKEN]: text });
    }

    const now = deps.now().toISOString();
    const reply = withMeta(new AIMessage({ id: deps.newId(), content: text }), { parentId: turn.messageId, createdAt: now });
    // An offline reply is kept in the transcript but is not conversation to remember.
    // An incognito turn (`remember: false`) stores nothing: the window keeps it for the session.
    const recall = model === OFFLINE_MODEL ? { recall: false as const } : {};
    await userRow();
    if (remember) {
      const memory = state.memoryText;
      const shown = memory?.shown ?? { messages: [], facts: [], events: [], summaries: [] };
      // With what this answer's memory context held, readable per message ("why did the model see this?").
      const context = { messageId: turn.messageId, replyId: reply.id ?? null, sessionId: scope.sessionId, createdAt: now, tokens: memory?.tokens ?? 0, shown };
      await saveAnswer(store, scope, messageToRecord(reply, scope.sessionId, { model, ...recall }), context, { markAnswer: flags.answerOnReply, later: flags.later });
    }
    return {
      usage,
      ...windowUpdate(state.messages, [reply], deps.limits.window),
      nodeMessages: { [NODE.callModel]: [human, reply] },
      turn: { ...turn, replyId: reply.id ?? null, model },
      session: remember ? { lastMessageId: reply.id ?? null, pairsSinceSummary: state.session.pairsSinceSummary + 1 } : {},
    };
  };
}

/** The key of the custom stream chunks that carry call_model's reply, token by token (`{ [REPLY_TOKEN]: text }`). */
export const REPLY_TOKEN = "replyToken";

/**
 * The model's reply to `prompt`, retrying transient errors. The run's config carries LangGraph's
 * callbacks (a run streamed in "messages" mode, as Studio's, gets the tokens from them). When the
 * run's caller asks for the reply's tokens (`streamReply`), a handler on this one model call makes
 * it stream and writes each piece to LangGraph's "custom" stream as it comes: the "messages" mode
 * would watch every runnable of the turn for it. Once a piece is out, an error is not retried (the
 * caller would get the reply's start twice).
 */
async function askModel(chatModel: BaseChatModel, prompt: BaseMessage[], config: LangGraphRunnableConfig, streamReply: boolean, deps: GraphDeps): Promise<AIMessage> {
  let sent = false;
  const send = (piece: string) => {
    sent = true;
    config.writer?.({ [REPLY_TOKEN]: piece });
  };
  const callConfig = streamReply ? { ...config, callbacks: withHandler(config.callbacks, new ReplyPieces(send)) } : config;
  return withRetry(() => chatModel.invoke(prompt, callConfig), {
    ...retryOptions(deps),
    isRetryable: (error) => !sent && isTransientError(error),
    onRetry: (attempt, error) => log.warn("model_retry", { attempt, error: messageOf(error) }),
  });
}

/** Makes the model call it is handed to stream (`lc_prefer_streaming`), and passes each piece of text on; sees no other run. */
class ReplyPieces extends BaseCallbackHandler {
  name = "reply_pieces";
  lc_prefer_streaming = true;
  override ignoreChain = true;
  override ignoreAgent = true;
  override ignoreRetriever = true;
  override ignoreCustomEvent = true;

  constructor(private readonly onPiece: (piece: string) => void) {
    super();
  }

  override handleLLMNewToken(token: string): void {
    if (token) this.onPiece(token);
  }
}

/** `callbacks` with `handler` added for this call alone (not inherited by runs inside it). */
function withHandler(callbacks: Callbacks | undefined, handler: BaseCallbackHandler): Callbacks {
  if (!callbacks) return [handler];
  if (Array.isArray(callbacks)) return [...callbacks, handler];
  const manager = callbacks.copy();
  manager.addHandler(handler, false);
  return manager;
}

/**
 * What the facade's turn runner tells call_model in the run's config (a run of the graph alone sets
 * none): `streamReply`, it takes the reply token by token from the "custom" stream;
 * `answerOnReply`, it hands the turn's result over as soon as the reply is stored; `lateWrites`,
 * it awaits the turn's late writes (the reply's vector, see `saveAnswer`) before it lets go of the turn.
 */
function runnerFlags(config: LangGraphRunnableConfig): { streamReply: boolean; answerOnReply: boolean; later?: LateWrites } {
  const flags = (config.configurable ?? {}) as { streamReply?: boolean; answerOnReply?: boolean; lateWrites?: unknown };
  const later = flags.lateWrites instanceof LateWrites ? flags.lateWrites : undefined;
  return { streamReply: flags.streamReply === true, answerOnReply: flags.answerOnReply === true, ...(later ? { later } : {}) };
}

/** The offline responder's answer to `message`, from what recall found. */
function offlineAnswer(message: string, recalled: MemoryContext, now: Date): string {
  return offlineReply({
    message,
    recalled: {
      summaries: recalled.summaries.map((s) => s.text),
      facts: recalled.facts.map((f) => f.text),
      similar: recalled.similar.map((m) => `${m.role}: ${m.text}`),
      events: recalled.events.map((e) => `${e.type}: ${e.text}`),
      known: recalled.facts.map((f) => ({ key: f.key, value: f.value, validFrom: f.validFrom })),
    },
    now,
  });
}

/**
 * `write` started now, awaited later: the returned function resolves when it is done, or throws
 * its error (held until then, so a write that fails while the model answers is not unhandled).
 */
function settled(write: Promise<void> | null): () => Promise<void> {
  const outcome = write?.then(
    () => null,
    (error: unknown) => ({ error }),
  );
  return async () => {
    const failed = await outcome;
    if (failed) throw failed.error;
  };
}
