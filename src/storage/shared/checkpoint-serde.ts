import type { BaseMessage } from "@langchain/core/messages";
import { JsonPlusSerializer, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { pruneDeep } from "../../json-bounds.js";
import { log } from "../../logger.js";
import { BY_PROTO, BY_TAG, type MessageKind } from "./message-kinds.js";

/** Type written by the fast path (plain JSON text); anything else is read by JsonPlus. */
export const COMPACT_JSON_TYPE = "mg-json";
/** Type of fast-path text that names a message written before it (see `CompactSerializer`). */
export const SHARED_JSON_TYPE = "mg-json-shared";
/** Key that marks an encoded message; its value is the message class name. */
const TAG = "$mg";
/** Key of a message written earlier in the same value: `{"$mgref": n}`, the n-th message (from 0) in the text. */
const REF = "$mgref";
/** Deeper nesting than this (a cycle of plain objects gets there) leaves the fast path. */
const MAX_DEPTH = 256;

/** Thrown inside the walk to leave the fast path. */
const BAIL = new Error("checkpoint-serde: not on the fast path");

/** One walk's messages: each instance met, with its place in the text (null while its own fields are walked). */
interface Walk {
  places: Map<object, number | null>;
  shared: boolean;
}

function encode(value: unknown, depth: number, walk: Walk): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (Number.isFinite(value)) return value;
      throw BAIL;
    case "object":
      break;
    default: // undefined (in an array), bigint, symbol, function
      throw BAIL;
  }
  if (value === null) return null;
  if (depth > MAX_DEPTH) throw BAIL;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Array.prototype && Array.isArray(value)) {
    const out: unknown[] = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i += 1) out[i] = encode(value[i], depth + 1, walk);
    return out;
  }
  if (proto === Object.prototype || proto === null) return encodeRecord(value as Record<string, unknown>, undefined, depth, walk);
  const kind = BY_PROTO.get(proto as object);
  if (kind === undefined) throw BAIL;
  const place = walk.places.get(value);
  if (place === null) throw BAIL; // a message within its own fields: a cycle
  if (place !== undefined) {
    walk.shared = true;
    return { [REF]: place };
  }
  const index = walk.places.size;
  walk.places.set(value, null);
  const message = value as BaseMessage & Record<string, unknown>;
  const kwargs: unknown = message.lc_kwargs;
  if (message.lc_serializable !== true || typeof kwargs !== "object" || kwargs === null) throw BAIL;
  if (Object.getPrototypeOf(kwargs) !== Object.prototype) throw BAIL; // as `toJSON()` wants a plain record
  const out = encodeRecord(kwargs as Record<string, unknown>, { kind, message }, depth, walk);
  walk.places.set(value, index);
  return out;
}

/**
 * A plain object key by key, or a message's constructor fields: like `toJSON()`, each `lc_kwargs`
 * key takes the message's own property when it has one. Undefined values are left out.
 */
function encodeRecord(
  record: Record<string, unknown>,
  from: { kind: MessageKind; message: Record<string, unknown> } | undefined,
  depth: number,
  walk: Walk,
): Record<string, unknown> {
  const out: Record<string, unknown> = from === undefined ? {} : { [TAG]: from.kind.tag };
  for (const key of Object.keys(record)) {
    if (from === undefined ? key === TAG || key === REF || key === "lc" : !from.kind.keys.has(key)) throw BAIL;
    const raw = from !== undefined && key in from.message ? from.message[key] : record[key];
    if (raw === undefined) continue;
    const value = encode(raw, depth + 1, walk);
    if (key === "__proto__") Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    else out[key] = value;
  }
  return out;
}

/**
 * Rebuilds tagged messages in a freshly parsed value, in place, innermost first. `messages` holds
 * the messages met so far in the order their text begins (as `encode` numbers them); with it, a
 * reference is the message it names (the same instance), else a reference is a plain record.
 */
function revive(value: unknown, messages: (BaseMessage | undefined)[], shared: boolean): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      if (typeof item === "object" && item !== null) value[i] = revive(item, messages, shared);
    }
    return value;
  }
  const record = value as Record<string, unknown>;
  if (shared && Object.hasOwn(record, REF)) return referenced(record[REF], messages);
  const tag = record[TAG];
  const place = tag === undefined ? -1 : messages.push(undefined) - 1;
  for (const key in record) {
    const item = record[key];
    if (typeof item === "object" && item !== null) record[key] = revive(item, messages, shared);
  }
  if (tag === undefined) return record;
  const kind = typeof tag === "string" ? BY_TAG.get(tag) : undefined;
  if (kind === undefined) throw new Error(`checkpoint-serde: unknown message tag ${JSON.stringify(tag)}`);
  const { [TAG]: _tag, ...fields } = record;
  const message = new kind.make(fields as never);
  messages[place] = message;
  return message;
}

function referenced(place: unknown, messages: readonly (BaseMessage | undefined)[]): BaseMessage {
  const message = typeof place === "number" ? messages[place] : undefined;
  if (message === undefined) throw new Error(`checkpoint-serde: no message ${JSON.stringify(place)} before its reference`);
  return message;
}

/**
 * Checkpoint serializer with a fast path for the usual state: JSON data and LangChain messages.
 *
 * `dumpsTyped` walks the value once into a JSON-able copy: strings, booleans, null and finite
 * numbers as they are; arrays item by item; plain objects key by key, leaving out undefined values;
 * messages of the core classes (Human, AI, System, Tool, Chat, Function, their chunks, Remove) as
 * `{"$mg": "<class>", ...constructor fields}`. The copy is written as UTF-8 JSON under type
 * `"mg-json"`. `loadsTyped` parses that without a reviver and rebuilds the tagged messages with
 * their constructors, so a message comes back as JsonPlus would return it (class, content, ids,
 * metadata, tool calls, usage, artifact, status...).
 *
 * A message instance met again in the same value is written once: later places hold
 * `{"$mgref": n}`, n its place among the messages of the text, and the type is `"mg-json-shared"`
 * (a value without one keeps `"mg-json"`). Loading gives one instance back wherever the value held
 * one. Node memory holds the very messages of the window that every LLM node answered, so each user
 * message is written once for all nodes (bench:storage's checkpoint: 15.9 KB of `nodeMessages` a
 * turn, 12.8 KB with this).
 *
 * Invariant: whatever the fast path accepts loads back equal to a JsonPlus round trip. So when
 * the walk meets anything else — undefined in an array, bigint, NaN or Infinity, a Date, Map, Set,
 * typed array or other class instance (message subclasses too), an object with a `$mg`, `$mgref` or `lc`
 * key (JsonPlus reads `lc` objects as its own records), a message field that JsonPlus would rename,
 * nesting deeper than 256 levels or a message within its own fields (a cycle) — the whole value is handed to a
 * private `JsonPlusSerializer` and its type and bytes are returned unchanged. Every type other
 * than these two ("json", "bytes", ...) is loaded by that JsonPlus, so older data still reads.
 * It suits checkpointers that store the type beside the bytes (ours, `PostgresSaver`), not
 * `MemorySaver`, which reads everything back as "json".
 * Differences: a plain object's key whose value is undefined is dropped (JsonPlus keeps it), and an
 * own `__proto__` key stays an ordinary key (JsonPlus turns it into the prototype).
 */
export class CompactSerializer implements SerializerProtocol {
  readonly #fallback = new JsonPlusSerializer();
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();

  async dumpsTyped(value: unknown): Promise<[string, Uint8Array]> {
    let copy: unknown;
    const walk: Walk = { places: new Map(), shared: false };
    try {
      copy = encode(value, 0, walk);
    } catch (error) {
      if (error !== BAIL) throw error;
      return this.#fallback.dumpsTyped(value);
    }
    return [walk.shared ? SHARED_JSON_TYPE : COMPACT_JSON_TYPE, this.#encoder.encode(JSON.stringify(copy))];
  }

  async loadsTyped(type: string, data: Uint8Array | string): Promise<unknown> {
    if (type !== COMPACT_JSON_TYPE && type !== SHARED_JSON_TYPE) return this.#loadFallback(type, data);
    return revive(JSON.parse(typeof data === "string" ? data : this.#decoder.decode(data)), [], type === SHARED_JSON_TYPE);
  }

  /**
   * JsonPlus's load, whose reviver recurses: JSON nested thousands of levels deep (stored before
   * inputs were bounded) overflows the stack. Such a checkpoint is repaired as it is read (every
   * value nested deeper than 256 levels becomes null, logged), so that its thread, and GC, go on.
   */
  async #loadFallback(type: string, data: Uint8Array | string): Promise<unknown> {
    try {
      return (await this.#fallback.loadsTyped(type, data)) as unknown;
    } catch (error) {
      if (!(error instanceof RangeError) || type !== "json") throw error;
      const { value, pruned } = pruneDeep(JSON.parse(typeof data === "string" ? data : this.#decoder.decode(data)), MAX_DEPTH);
      if (pruned === 0) throw error;
      log.warn("checkpoint.too_deep", { pruned, max_depth: MAX_DEPTH });
      return (await this.#fallback.loadsTyped(type, JSON.stringify(value))) as unknown;
    }
  }
}
