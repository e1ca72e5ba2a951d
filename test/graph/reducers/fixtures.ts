import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { withMeta } from "../../../src/messages/message-meta.js";

/** A pinned system message with a fixed id. */
export function pinned(id: string, text = `pinned ${id}`): SystemMessage {
  return withMeta(new SystemMessage({ id, content: text }), { pinned: true });
}

/** `n` alternating human/ai messages with ids m0…m(n-1) and text "message i". */
export function conversation(n: number, text: (i: number) => string = (i) => `message ${i}`): BaseMessage[] {
  return Array.from({ length: n }, (_, i) =>
    i % 2 === 0 ? new HumanMessage({ id: `m${i}`, content: text(i) }) : new AIMessage({ id: `m${i}`, content: text(i) }),
  );
}

/** An AI message calling tools `callIds`, followed by one ToolMessage answering each. */
export function toolExchange(prefix: string, callIds: string[]): BaseMessage[] {
  const ai = new AIMessage({
    id: `${prefix}-ai`,
    content: "",
    tool_calls: callIds.map((id) => ({ id, name: "lookup", args: { q: id }, type: "tool_call" as const })),
  });
  const tools = callIds.map((id) => new ToolMessage({ id: `${prefix}-${id}`, content: `result ${id}`, tool_call_id: id }));
  return [ai, ...tools];
}

type Block = { kind: "human" | "ai" | "system" | "pinned"; text: string } | { kind: "tools"; calls: number; text: string };

const blockArb: fc.Arbitrary<Block> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constantFrom("human" as const, "ai" as const), text: fc.string({ maxLength: 40 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom("system" as const, "pinned" as const), text: fc.string({ maxLength: 30 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("tools" as const), calls: fc.integer({ min: 1, max: 3 }), text: fc.string({ maxLength: 20 }) }) },
);

/** Conversations of humans, AIs, system and pinned messages, and tool exchanges; unique ids. */
export const messagesArb: fc.Arbitrary<BaseMessage[]> = fc.array(blockArb, { maxLength: 25 }).map((blocks) =>
  blocks.flatMap((block, b): BaseMessage[] => {
    const id = `b${b}`;
    switch (block.kind) {
      case "human":
        return [new HumanMessage({ id, content: block.text })];
      case "ai":
        return [new AIMessage({ id, content: block.text })];
      case "system":
        return [new SystemMessage({ id, content: block.text })];
      case "pinned":
        return [pinned(id, block.text)];
      case "tools":
        return toolExchange(id, Array.from({ length: block.calls }, (_, c) => `${id}-call${c}`));
    }
  }),
);

/** Window limits small enough that trimming happens often. */
export const limitsArb = fc.record(
  {
    maxMessages: fc.integer({ min: 0, max: 12 }),
    maxChars: fc.integer({ min: 0, max: 300 }),
    maxTokens: fc.integer({ min: 0, max: 80 }),
  },
  { requiredKeys: ["maxMessages", "maxChars"] },
);
