import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ChatResult } from "@langchain/core/outputs";
import { fakeModel } from "@langchain/core/testing";
import { textOf } from "../../src/messages/message-meta.js";

/**
 * An agent's model for tests: LangChain's fake chat model (it binds tools and records every call)
 * answering each of up to `calls` calls with `answer(messages)`: a string, or a message of its own
 * (tool calls).
 */
export function answeringModel(answer: (messages: BaseMessage[]) => string | AIMessage = (messages) => `ok: ${textOf(messages.at(-1) as BaseMessage)}`, calls = 40) {
  const model = fakeModel();
  for (let i = 0; i < calls; i++) model.respond((messages) => {
    const reply = answer(messages);
    return typeof reply === "string" ? new AIMessage(reply) : reply;
  });
  return model;
}

/** The text of the system message of a model call (where the middleware puts memory). */
export function systemTextOf(messages: readonly BaseMessage[]): string {
  const first = messages[0];
  return first && first.getType() === "system" ? textOf(first) : "";
}

/**
 * A chat model whose every call waits for `gate`, then answers text that is no classification
 * (memory's keyword classifier takes over): to hold a classifier call out. Counts its calls.
 */
export class GatedModel extends BaseChatModel {
  callCount = 0;
  constructor(private readonly gate: Promise<void>) {
    super({});
  }
  _llmType(): string {
    return "gated";
  }
  override bindTools(): this {
    return this;
  }
  async _generate(): Promise<ChatResult> {
    this.callCount += 1;
    await this.gate;
    return { generations: [{ text: "", message: new AIMessage("no classification here") }] };
  }
}
