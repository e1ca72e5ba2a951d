import fc from "fast-check";
import { describe, expect, it } from "vitest";
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
import { JsonPlusSerializer, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { CompactSerializer, SHARED_JSON_TYPE } from "../../../src/storage/shared/checkpoint-serde.js";

const FAST = "mg-json";
const compact = new CompactSerializer();
const jsonplus = new JsonPlusSerializer();

// Loaded values are checked field by field; a loose type keeps the assertions short.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

async function roundTrip(serde: SerializerProtocol, value: unknown): Promise<{ type: string; value: Loose }> {
  const [type, bytes] = await serde.dumpsTyped(value);
  return { type, value: await serde.loadsTyped(type, bytes) };
}

/** The fields a message is judged by, read through its own getters. */
function fieldsOf(message: Loose) {
  return {
    type: message.getType(),
    dict: message.toDict(),
    content: message.content,
    id: message.id,
    name: message.name,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
    tool_calls: message.tool_calls,
    invalid_tool_calls: message.invalid_tool_calls,
    tool_call_chunks: message.tool_call_chunks,
    usage_metadata: message.usage_metadata,
    tool_call_id: message.tool_call_id,
    artifact: message.artifact,
    status: message.status,
    role: message.role,
  };
}

const usage = { input_tokens: 12, output_tokens: 5, total_tokens: 17, input_token_details: { cache_read: 4 } };
const toolCall = { id: "call_1", name: "lookup_order", args: { orderId: 4711, fields: ["eta"] }, type: "tool_call" as const };
const meta = { model_name: "gpt-4o-mini", finish_reason: "stop", tokenUsage: { totalTokens: 17 } };

const messages: [string, () => BaseMessage][] = [
  ["HumanMessage (string)", () => new HumanMessage("hello")],
  ["HumanMessage (fields)", () => new HumanMessage({ content: "hi", id: "h1", name: "ann", additional_kwargs: { lang: "th" } })],
  [
    "HumanMessage (array content)",
    () => new HumanMessage({ content: [{ type: "text", text: "look" }, { type: "image_url", image_url: { url: "https://x/y.png" } }], id: "h2" }),
  ],
  ["HumanMessage (contentBlocks)", () => new HumanMessage({ contentBlocks: [{ type: "text", text: "v1 blocks" }], id: "h3" })],
  ["SystemMessage", () => new SystemMessage({ content: "be brief", id: "s1", additional_kwargs: { cache: true } })],
  [
    "AIMessage (tool calls, usage)",
    () =>
      new AIMessage({
        content: "",
        id: "chatcmpl-1",
        name: "bot",
        tool_calls: [toolCall],
        invalid_tool_calls: [{ id: "call_2", name: "broken", args: "{oops", error: "Malformed args.", type: "invalid_tool_call" }],
        usage_metadata: usage,
        response_metadata: meta,
      }),
  ],
  ["AIMessage (string)", () => new AIMessage("plain reply")],
  [
    "AIMessage (array content)",
    () => new AIMessage({ content: [{ type: "text", text: "part one" }, { type: "text", text: "part two" }], id: "a2", response_metadata: meta }),
  ],
  ["ToolMessage", () => new ToolMessage({ content: '{"eta":"tomorrow"}', tool_call_id: "call_1", name: "lookup_order", id: "t1", artifact: { rows: [1, 2], raw: { ok: true } }, status: "error" })],
  ["ToolMessage (positional)", () => new ToolMessage("done", "call_9", "tool_x")],
  ["ChatMessage", () => new ChatMessage({ content: "as the critic...", role: "critic", id: "c1", name: "critic" })],
  ["FunctionMessage", () => new FunctionMessage({ content: "42", name: "answer", id: "f1" })],
  ["RemoveMessage", () => new RemoveMessage({ id: "gone-1" })],
  ["HumanMessageChunk", () => new HumanMessageChunk({ content: "par", id: "hc1" })],
  ["SystemMessageChunk", () => new SystemMessageChunk({ content: "sys", id: "sc1" })],
  ["AIMessageChunk", () => new AIMessageChunk({ content: "partial", id: "ac1", usage_metadata: usage, response_metadata: meta })],
  [
    "AIMessageChunk (tool call chunks)",
    () =>
      new AIMessageChunk({
        content: "",
        id: "ac2",
        tool_call_chunks: [{ id: "call_3", name: "lookup_order", args: '{"orderId":1}', index: 0, type: "tool_call_chunk" }],
      }),
  ],
  ["ChatMessageChunk", () => new ChatMessageChunk({ content: "c", role: "critic", id: "cc1" })],
  ["FunctionMessageChunk", () => new FunctionMessageChunk({ content: "1", name: "fn", id: "fc1" })],
];

describe("CompactSerializer messages", () => {
  it.each(messages)("%s round-trips on the fast path like JsonPlus", async (_label, make) => {
    const original = make();
    const fast = await roundTrip(compact, original);
    const plus = await roundTrip(jsonplus, original);
    expect(fast.type).toBe(FAST);
    expect(Object.getPrototypeOf(fast.value)).toBe(Object.getPrototypeOf(original));
    expect(fast.value).toBeInstanceOf(original.constructor);
    expect(fieldsOf(fast.value)).toEqual(fieldsOf(plus.value));
    expect(fieldsOf(fast.value)).toEqual(fieldsOf(original));
    expect(fast.value).toStrictEqual(plus.value);
  });

  it("hands ToolMessageChunk to JsonPlus, which renames its tool_call_id", async () => {
    const original = new ToolMessageChunk({ content: "r", tool_call_id: "call_1", id: "tc1" });
    const fast = await roundTrip(compact, original);
    const plus = await roundTrip(jsonplus, original);
    expect(fast.type).toBe("json");
    expect(fast.value).toStrictEqual(plus.value);
  });

  it("hands message subclasses to JsonPlus", async () => {
    class TaggedHuman extends HumanMessage {}
    const [type] = await compact.dumpsTyped([new TaggedHuman("hi")]);
    expect(type).toBe("json");
  });
});

/** A state shaped like the graph's: messages in arrays, in records, in arrays. */
function stateLike() {
  const turn = (i: number): BaseMessage[] => [
    new HumanMessage({ content: `question ${i}`, id: `u${i}` }),
    new AIMessage({ content: `answer ${i}`, id: `a${i}`, usage_metadata: usage, response_metadata: meta, tool_calls: i % 2 ? [toolCall] : [] }),
    new ToolMessage({ content: "ok", tool_call_id: "call_1", id: `t${i}` }),
  ];
  return {
    messages: [new SystemMessage({ content: "sys", id: "s" }), ...turn(1), ...turn(2)],
    nodeMessages: { call_model: turn(3), summarize: [...turn(4), ...turn(5)], recall: [] },
    history: [{ step: 1, writes: [{ channel: "messages", value: turn(6) }] }, null, "x", 3.5, true],
    session: { lastActiveAt: "2025-03-01T10:00:00.000Z", lastIntent: null, activeEntities: [{ id: "o1" }], pairs: 2 },
  };
}

describe("CompactSerializer state", () => {
  it("round-trips nested messages on the fast path, equal to JsonPlus", async () => {
    const state = stateLike();
    const fast = await roundTrip(compact, state);
    const plus = await roundTrip(jsonplus, state);
    expect(fast.type).toBe(FAST);
    expect(fast.value).toStrictEqual(plus.value);
    expect(fast.value).toEqual(state);
    expect(fast.value.nodeMessages.call_model[1]).toBeInstanceOf(AIMessage);
    expect(fast.value.nodeMessages.call_model[2]).toBeInstanceOf(ToolMessage);
    expect(fast.value.history[0].writes[0].value[0]).toBeInstanceOf(HumanMessage);
    expect(fast.value.messages[0]).toBeInstanceOf(SystemMessage);
  });

  it("writes smaller bytes than JsonPlus", async () => {
    const [, fast] = await compact.dumpsTyped(stateLike());
    const [, plus] = await jsonplus.dumpsTyped(stateLike());
    expect(fast.byteLength).toBeLessThan(plus.byteLength);
  });

  it("drops a plain object's undefined values, as JSON does", async () => {
    const fast = await roundTrip(compact, { a: 1, b: undefined, nested: { c: undefined } });
    expect(fast.type).toBe(FAST);
    expect(fast.value).toStrictEqual({ a: 1, nested: {} });
  });

  it("keeps an own __proto__ key as data", async () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "list": [{"__proto__": 1}]}');
    const fast = await roundTrip(compact, value);
    expect(fast.type).toBe(FAST);
    expect(Object.keys(fast.value)).toEqual(["__proto__", "list"]);
    expect(fast.value.__proto__).toEqual({ polluted: true });
    expect(({} as Loose).polluted).toBeUndefined();
  });

  it("loads string data and refuses an unknown message tag", async () => {
    await expect(compact.loadsTyped(FAST, '{"m":{"$mg":"HumanMessage","content":"hi"}}')).resolves.toEqual({
      m: new HumanMessage("hi"),
    });
    await expect(compact.loadsTyped(FAST, '{"$mg":"EvilMessage","content":"x"}')).rejects.toThrow(/unknown message tag/);
  });
});

class Point {
  constructor(
    public x = 1,
    public y = 2,
  ) {}
}

function fallbacks(): [string, () => unknown][] {
  return [
    ["Date", () => ({ when: new Date(0), messages: [new HumanMessage("hi")] })],
    ["Map", () => ({ m: new Map([["a", 1]]) })],
    ["Set", () => [new Set([1, 2])]],
    ["Uint8Array", () => new Uint8Array([1, 2, 3])],
    ["nested Uint8Array", () => ({ blob: new Uint8Array([1, 2, 3]) })],
    ["bigint", () => ({ n: 10n, messages: [new HumanMessage("hi")] })],
    ["NaN", () => ({ n: NaN, inf: Infinity })],
    ["tag key", () => ({ $mg: "HumanMessage", content: "not a message" })],
    ["lc key", () => ({ lc: 2, type: "constructor", id: ["Set"], method: null, args: [[1]], kwargs: {} })],
    ["undefined in an array", () => [1, undefined, 3]],
    ["class instance", () => ({ at: new Point() })],
    ["Date inside a message", () => [new AIMessage({ content: "x", additional_kwargs: { at: new Date(0) } })]],
    ["cycle", () => {
      const node: Record<string, unknown> = { name: "a", messages: [new HumanMessage("hi")] };
      node.self = node;
      return node;
    }],
  ];
}

describe("CompactSerializer fallback", () => {
  it.each(fallbacks())("%s goes to JsonPlus and round-trips as it does", async (_label, make) => {
    const fast = await roundTrip(compact, make());
    const plus = await roundTrip(jsonplus, make());
    expect(fast.type).not.toBe(FAST);
    expect(fast.type).toBe(plus.type);
    expect(fast.value).toStrictEqual(plus.value);
  });

  it("writes the same bytes as JsonPlus when it falls back", async () => {
    const value = { m: new Map([["a", 1]]), messages: [new HumanMessage({ content: "hi", id: "h" })] };
    const [fastType, fastBytes] = await compact.dumpsTyped(value);
    const [plusType, plusBytes] = await jsonplus.dumpsTyped(value);
    expect([fastType, new TextDecoder().decode(fastBytes)]).toEqual([plusType, new TextDecoder().decode(plusBytes)]);
  });
});

describe("CompactSerializer reading JsonPlus data", () => {
  it("loads what a plain JsonPlusSerializer wrote, unchanged", async () => {
    const values = [stateLike(), new Uint8Array([7, 8]), { s: new Set(["a"]), at: new Date(0) }, "text", 3, null];
    for (const value of values) {
      const [type, bytes] = await jsonplus.dumpsTyped(value);
      expect(await compact.loadsTyped(type, bytes)).toStrictEqual(await jsonplus.loadsTyped(type, bytes));
      const text = new TextDecoder().decode(bytes);
      if (type === "json") expect(await compact.loadsTyped(type, text)).toStrictEqual(await jsonplus.loadsTyped(type, text));
    }
  });
});

/** True when some object in `value` has one of `keys` (those objects leave the fast path). */
function hasKey(value: unknown, keys: readonly string[]): boolean {
  if (Array.isArray(value)) return value.some((item) => hasKey(item, keys));
  if (typeof value !== "object" || value === null) return false;
  return Object.entries(value).some(([key, item]) => keys.includes(key) || hasKey(item, keys));
}

describe("CompactSerializer with a message met twice", () => {
  const human = () => new HumanMessage({ id: "u1", content: "Where is order 4711?", additional_kwargs: { memory_graph: { parentId: null } } });

  it("writes it once, and loads it back as one instance equal to JsonPlus's", async () => {
    const shared = human();
    const value = { call_model: [shared, new AIMessage({ id: "a1", content: "On its way." })], classify_event: [shared, new AIMessage({ id: "u1#c", content: "{}" })] };
    const [type, bytes] = await compact.dumpsTyped(value);
    expect(type).toBe(SHARED_JSON_TYPE);
    expect(new TextDecoder().decode(bytes).split("Where is order 4711?")).toHaveLength(2);
    const loaded: Loose = await compact.loadsTyped(type, bytes);
    expect(loaded.classify_event[0]).toBe(loaded.call_model[0]);
    expect(loaded).toStrictEqual((await roundTrip(jsonplus, value)).value);
    expect(fieldsOf(loaded.classify_event[0])).toEqual(fieldsOf(shared));
  });

  it("keeps mg-json for equal messages that are not one instance", async () => {
    const fast = await roundTrip(compact, [human(), human()]);
    expect(fast.type).toBe(FAST);
    expect(fast.value[0]).not.toBe(fast.value[1]);
  });

  it("numbers messages in the order their text begins, nested ones included", async () => {
    const inner = human();
    const tool = new ToolMessage({ id: "t1", content: "found", tool_call_id: "call_1", artifact: { asked: inner } });
    const value = [tool, inner, tool, { again: inner }];
    const [type, bytes] = await compact.dumpsTyped(value);
    expect(type).toBe(SHARED_JSON_TYPE);
    const loaded: Loose = await compact.loadsTyped(type, bytes);
    expect(loaded[0]).toBeInstanceOf(ToolMessage);
    expect(loaded[2]).toBe(loaded[0]);
    expect(loaded[1]).toBe(loaded[0].artifact.asked);
    expect(loaded[3].again).toBe(loaded[1]);
    expect(fieldsOf(loaded[1])).toEqual(fieldsOf(inner));
  });

  it("keeps each value's sharing as it was, whatever the pattern", async () => {
    const pool = [human(), new AIMessage({ id: "a1", content: "x" }), new SystemMessage({ id: "s1", content: "y" })];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat({ max: pool.length - 1 }), { maxLength: 12 }), async (picks) => {
        const value = picks.map((i) => pool[i]);
        const loaded: Loose[] = (await roundTrip(compact, value)).value;
        for (let i = 0; i < picks.length; i += 1) {
          expect(fieldsOf(loaded[i])).toEqual(fieldsOf(value[i]));
          for (let j = 0; j < i; j += 1) expect(loaded[i] === loaded[j]).toBe(picks[i] === picks[j]);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("hands a record with a $mgref key to JsonPlus, and reads one in mg-json text as data", async () => {
    const fast = await roundTrip(compact, { $mgref: 0, m: human() });
    expect(fast.type).not.toBe(FAST);
    expect(fast.type).not.toBe(SHARED_JSON_TYPE);
    expect(fast.value.$mgref).toBe(0);
    await expect(compact.loadsTyped(FAST, '{"$mgref":0}')).resolves.toEqual({ $mgref: 0 });
  });

  it("refuses a reference to no message before it", async () => {
    await expect(compact.loadsTyped(SHARED_JSON_TYPE, '[{"$mgref":0},{"$mg":"HumanMessage","content":"hi"}]')).rejects.toThrow(/before its reference/);
  });

  it("hands a message within its own fields to JsonPlus", async () => {
    const loop = human();
    loop.additional_kwargs.self = loop;
    const [type] = await compact.dumpsTyped([loop]).catch(() => ["threw"]);
    expect(type).not.toBe(FAST);
    expect(type).not.toBe(SHARED_JSON_TYPE);
  });
});

describe("CompactSerializer property", () => {
  it("round-trips any JSON value", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const fast = await roundTrip(compact, value);
        if (!hasKey(value, ["$mg", "$mgref", "lc"])) expect(fast.type).toBe(FAST);
        expect(fast.value).toStrictEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 300 },
    );
  });
});

describe("a checkpoint stored with JSON nested too deep for JsonPlus's reviver", () => {
  it("loads, every value nested deeper than 256 levels replaced by null, instead of overflowing the stack", async () => {
    const levels = 100_000;
    const text = `{"kept":{"a":1},"payload":${'{"a":'.repeat(levels)}1${"}".repeat(levels)}}`;
    const loaded = (await new CompactSerializer().loadsTyped("json", new TextEncoder().encode(text))) as Record<string, unknown>;
    expect(loaded.kept).toEqual({ a: 1 });
    let depth = 0;
    for (let at: unknown = loaded.payload; at !== null && typeof at === "object"; at = (at as { a: unknown }).a) depth += 1;
    expect(depth).toBe(255);
    await expect(new JsonPlusSerializer().loadsTyped("json", new TextEncoder().encode(text))).rejects.toThrow(RangeError);
  });
});
