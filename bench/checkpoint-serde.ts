/**
 * `npm run bench:serde`: dumps + loads of one realistic checkpoint state (40 messages
 * with provider metadata, a nodeMessages record of 3×20 messages, session bookkeeping) through
 * LangGraph's JsonPlusSerializer and our CompactSerializer, each timed as the median of ten batches.
 * Prints one JSON object: {"jsonplus_ms_per_roundtrip", "compact_ms_per_roundtrip", "bytes_jsonplus",
 * "bytes_compact", ...}. Options: --rounds N (default 300), --warmup N (default 50).
 */
import { parseArgs } from "node:util";
import { performance } from "node:perf_hooks";
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { JsonPlusSerializer, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { CompactSerializer } from "../src/storage/shared/checkpoint-serde.js";

const { values: args } = parseArgs({
  options: { rounds: { type: "string", default: "300" }, warmup: { type: "string", default: "50" } },
});
const ROUNDS = Number(args.rounds);
const WARMUP = Number(args.warmup);

const SENTENCE = "Could you check when order 4711 ships and what delivery to Chiang Mai costs";

/** One user/assistant exchange as a chat model leaves it, every few turns with a tool call. */
function exchange(prefix: string, i: number): BaseMessage[] {
  const user = new HumanMessage({ content: `${SENTENCE}? (turn ${i})`, id: `${prefix}-u${i}` });
  const usage = { input_tokens: 812 + i, output_tokens: 64, total_tokens: 876 + i };
  const response_metadata = {
    tokenUsage: { promptTokens: usage.input_tokens, completionTokens: 64, totalTokens: usage.total_tokens },
    finish_reason: "stop",
    model_name: "gpt-4o-mini-2024-07-18",
    system_fingerprint: "fp_0ba0d124f1",
  };
  if (i % 5 !== 4) {
    const text = `Your order ${4711 + i} is being prepared and should ship within two business days. ${SENTENCE.slice(0, 40)}.`;
    return [user, new AIMessage({ content: text, id: `chatcmpl-${prefix}${i}`, response_metadata, usage_metadata: usage })];
  }
  const call = { id: `call_${prefix}${i}`, name: "lookup_order", args: { orderId: 4711 + i, fields: ["eta", "cost"] }, type: "tool_call" as const };
  return [
    user,
    new AIMessage({ content: "", id: `chatcmpl-${prefix}${i}`, tool_calls: [call], response_metadata, usage_metadata: usage }),
    new ToolMessage({ content: JSON.stringify({ eta: "2025-03-02", cost: 4.9 }), tool_call_id: call.id, name: call.name, id: `${prefix}-t${i}` }),
  ];
}

function conversation(prefix: string, count: number): BaseMessage[] {
  const out: BaseMessage[] = [new SystemMessage({ content: "You are a helpful shop assistant.", id: `${prefix}-sys` })];
  for (let i = 0; out.length < count; i += 1) out.push(...exchange(prefix, i));
  return out.slice(0, count);
}

const state = {
  messages: conversation("m", 40),
  nodeMessages: {
    call_model: conversation("cm", 20),
    summarize: conversation("su", 20),
    recall: conversation("rc", 20),
  },
  session: {
    lastActiveAt: "2025-03-01T10:00:00.000Z",
    lastMessageId: "m-u19",
    lastIntent: "order_status",
    activeEntities: Array.from({ length: 6 }, (_, i) => ({ type: "order", id: `${4711 + i}`, label: `Order ${4711 + i}` })),
    pairsSinceSummary: 7,
    summarizedThroughId: "m-u12",
    windowsRebuilt: 0,
  },
  turn: { messageId: "m-u19", text: SENTENCE, startedAt: "2025-03-01T10:00:00.000Z", regenerated: false, replyId: null },
  errors: [],
};

async function perRoundtrip(serde: SerializerProtocol): Promise<number> {
  const once = async () => {
    const [type, bytes] = await serde.dumpsTyped(state);
    await serde.loadsTyped(type, bytes);
  };
  for (let i = 0; i < WARMUP; i += 1) await once();
  // The median of ten batches, so a busy moment on the machine does not skew the figure.
  const batch = Math.max(1, Math.round(ROUNDS / 10));
  const perBatch: number[] = [];
  for (let b = 0; b < 10; b += 1) {
    const started = performance.now();
    for (let i = 0; i < batch; i += 1) await once();
    perBatch.push((performance.now() - started) / batch);
  }
  perBatch.sort((x, y) => x - y);
  return ((perBatch[4] ?? 0) + (perBatch[5] ?? 0)) / 2;
}

const round2 = (x: number) => Math.round(x * 1000) / 1000;
const jsonplus = new JsonPlusSerializer();
const compact = new CompactSerializer();
const [plusType, plusBytes] = await jsonplus.dumpsTyped(state);
const [compactType, compactBytes] = await compact.dumpsTyped(state);
const plusMs = await perRoundtrip(jsonplus);
const compactMs = await perRoundtrip(compact);

console.log(
  JSON.stringify({
    jsonplus_ms_per_roundtrip: round2(plusMs),
    compact_ms_per_roundtrip: round2(compactMs),
    speedup: round2(plusMs / compactMs),
    bytes_jsonplus: plusBytes.byteLength,
    bytes_compact: compactBytes.byteLength,
    types: [plusType, compactType],
    rounds: ROUNDS,
  }),
);
