import {
  AIMessage,
  AIMessageChunk,
  ChatMessage,
  ChatMessageChunk,
  FunctionMessage,
  FunctionMessageChunk,
  HumanMessage,
  HumanMessageChunk,
  RemoveMessage,
  SystemMessage,
  SystemMessageChunk,
  ToolMessage,
  ToolMessageChunk,
  type BaseMessage,
} from "@langchain/core/messages";

/**
 * The message classes `CompactSerializer` writes on its fast path, each under its class name as
 * tag, with the constructor fields it may copy as they are.
 */

/** Constructor keys that JsonPlus writes and reads back under the same name, for every class. */
const STABLE_KEYS = ["content", "contentBlocks", "id", "name", "type", "role", "artifact", "status", "metadata"];

type MessageClass = new (fields: never) => BaseMessage;

/** A message class as the serializer knows it. */
export interface MessageKind {
  tag: string;
  make: MessageClass;
  /** The `lc_kwargs` keys we may copy as they are (others fall back, as JsonPlus renames them). */
  keys: ReadonlySet<string>;
}

const CLASSES: Record<string, MessageClass> = {
  HumanMessage, HumanMessageChunk, AIMessage, AIMessageChunk, SystemMessage, SystemMessageChunk,
  ToolMessage, ToolMessageChunk, ChatMessage, ChatMessageChunk, FunctionMessage, FunctionMessageChunk,
  RemoveMessage,
};

/** Kinds by exact prototype (a subclass is unknown, so it falls back) and by tag. */
export const BY_PROTO = new Map<object, MessageKind>();
export const BY_TAG = new Map<string, MessageKind>();
for (const [tag, make] of Object.entries(CLASSES)) {
  // Same union of `lc_aliases` along the prototype chain that `toJSON()` and `load()` use.
  const keys = new Set(STABLE_KEYS);
  for (let proto = make.prototype as object | null; proto !== null; proto = Object.getPrototypeOf(proto) as object | null) {
    const aliases = Reflect.get(proto, "lc_aliases", make.prototype as object) as Record<string, string> | undefined;
    for (const [key, alias] of Object.entries(aliases ?? {})) if (alias === key) keys.add(key);
  }
  const kind = { tag, make, keys };
  BY_PROTO.set(make.prototype as object, kind);
  BY_TAG.set(tag, kind);
}
