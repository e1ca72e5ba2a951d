import { FakeListChatModel } from "@langchain/core/utils/testing";
import { ChatOpenAI } from "@langchain/openai";
import { MemoryGraphError } from "../../src/errors.js";
import { createChatModel } from "../../src/models/chat-model.js";
import { classifyWithModel, summarizeWithModel } from "../../src/models/structured.js";
import { type OpenAIStub, type StubReply, startOpenAIStub } from "./openai-stub.js";

const EVENT = {
  type: "TRANSACTION",
  importance: 0.8,
  intent: "top_up",
  entities: [{ type: "person", value: "Bharat" }],
  language: "hi",
  payload: { amount: 500, resolvedFrom: "context" },
  attributeUpdates: [],
};
const CONTEXT = { lastIntent: "balance_inquiry", activeEntities: [{ type: "person", value: "Bharat" }] };

let stub: OpenAIStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

async function modelAnswering(replies: StubReply[]): Promise<ChatOpenAI> {
  stub = await startOpenAIStub(replies);
  return createChatModel({ baseUrl: stub.baseUrl, model: "gpt-4o-mini", timeoutMs: 5_000, maxRetries: 0 }) as ChatOpenAI;
}

async function badOutputOf(promise: Promise<unknown>): Promise<MemoryGraphError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(MemoryGraphError);
  expect(error).toMatchObject({ code: "CLASSIFIER_BAD_OUTPUT", kind: "upstream" });
  return error as MemoryGraphError;
}

describe("classifyWithModel with ChatOpenAI on a local stub", () => {
  it("parses the structured tool call into an event", async () => {
    const model = await modelAnswering([{ kind: "tool", name: "classified_event", args: JSON.stringify(EVENT) }]);
    const event = await classifyWithModel(model, "Usko 500 add karo", CONTEXT);
    expect(event).toEqual(EVENT);
    const request = stub?.requests[0] ?? {};
    expect(request.url).toBe("/v1/chat/completions");
    expect(JSON.stringify(request.tools)).toContain("classified_event");
    expect(JSON.stringify(request.messages)).toContain("Bharat");
  });

  it("tidies small slips (lower-case type, string importance, missing lists)", async () => {
    const sloppy = { type: "inquiry", importance: "0.6", intent: "balance_inquiry", language: "hi", entities: [] };
    const model = await modelAnswering([{ kind: "tool", name: "classified_event", args: JSON.stringify(sloppy) }]);
    const event = await classifyWithModel(model, "Bharat ka balance kitna hai?");
    expect(event).toMatchObject({ type: "INQUIRY", importance: 0.6, payload: {}, attributeUpdates: [] });
  });

  it("asks for the compact answer: three fields required, the rest left out when empty, English left unnamed", async () => {
    const model = await modelAnswering([{ kind: "tool", name: "classified_event", args: JSON.stringify({ type: "GENERIC_EVENT", importance: 0.1, intent: "greeting" }) }]);
    const event = await classifyWithModel(model, "Hello there");
    expect(event).toEqual({ type: "GENERIC_EVENT", importance: 0.1, intent: "greeting", entities: [], language: "en", payload: {}, attributeUpdates: [] });
    const tools = stub?.requests[0]?.tools as { function: { parameters: { required: string[]; properties: Record<string, unknown> } } }[];
    const parameters = tools[0]?.function.parameters;
    expect(parameters?.required.sort()).toEqual(["importance", "intent", "type"]);
    expect(Object.keys(parameters?.properties ?? {}).sort()).toEqual(["attributeUpdates", "entities", "importance", "intent", "language", "payload", "relations", "type"]);
  });

  it("reads the relations of the answer as objects (the entity graph's part), and leaves them out when the model gives none", async () => {
    const model = await modelAnswering([{ kind: "tool", name: "classified_event", args: JSON.stringify({ type: "INFORMATION", importance: 0.6, intent: "family_news", entities: ["person:Priya"], relations: ["Priya|sister_of|I", "bad"] }) }]);
    const event = await classifyWithModel(model, "Priya is my sister.");
    expect(event.relations).toEqual([{ from: "Priya", type: "sister_of", to: "I" }]);
    expect(event.entities).toEqual([{ type: "person", value: "Priya" }]);
  });

  it("keeps the language a model names (one the local detection does not know), and detects it when left out", async () => {
    const model = await modelAnswering([
      { kind: "tool", name: "classified_event", args: JSON.stringify({ type: "INQUIRY", importance: 0.4, intent: "opening_hours", language: "es" }) },
      { kind: "tool", name: "classified_event", args: JSON.stringify({ type: "INQUIRY", importance: 0.4, intent: "opening_hours" }) },
    ]);
    expect(await classifyWithModel(model, "¿A qué hora abre la tienda?")).toMatchObject({ language: "es" });
    expect(await classifyWithModel(model, "ร้านเปิดกี่โมง")).toMatchObject({ language: "th" });
  });

  it('reads "kind:value" entities and attributes as objects, and the context goes out the same way', async () => {
    const answer = { type: "INFORMATION", importance: 0.7, intent: "profile_update", entities: ["person:Anil"], attributeUpdates: ["phone:+66 81 234 5678", "preference.contact:LINE"] };
    const model = await modelAnswering([{ kind: "tool", name: "classified_event", args: JSON.stringify(answer) }]);
    const event = await classifyWithModel(model, "Anil is my brother; my phone is +66 81 234 5678", CONTEXT);
    expect(event.entities).toEqual([{ type: "person", value: "Anil" }]);
    expect(event.attributeUpdates).toEqual([
      { key: "phone", value: "+66 81 234 5678" },
      { key: "preference.contact", value: "LINE" },
    ]);
    expect(JSON.stringify(stub?.requests[0]?.messages)).toContain(String.raw`\"activeEntities\":[\"person:Bharat\"]`);
  });

  it("shows the model the order numbers it found and adds them to the entities the model names", async () => {
    const answer = { type: "COMPLAINT", importance: 0.8, intent: "late_delivery", entities: ["person:Anil"] };
    const model = await modelAnswering([{ kind: "tool", name: "classified_event", args: JSON.stringify(answer) }]);
    const event = await classifyWithModel(model, "Anil says order 1005 and order #A-2231 arrived late");
    expect(event.entities).toEqual([
      { type: "person", value: "Anil" },
      { type: "order_id", value: "1005" },
      { type: "order_id", value: "A-2231" },
    ]);
    expect(JSON.stringify(stub?.requests[0]?.messages)).toContain(String.raw`\"found\":[\"order_id:1005\",\"order_id:A-2231\"]`);
  });

  it("keeps an order number the model repeats once", async () => {
    const answer = { type: "COMPLAINT", importance: 0.8, intent: "late_delivery", entities: ["ORDER_ID:1005"] };
    const model = await modelAnswering([{ kind: "tool", name: "classified_event", args: JSON.stringify(answer) }]);
    expect((await classifyWithModel(model, "my order 1005 is late")).entities).toEqual([{ type: "ORDER_ID", value: "1005" }]);
  });

  it('throws CLASSIFIER_BAD_OUTPUT on an entity that is not "kind:value"', async () => {
    const answer = { type: "COMPLAINT", importance: 0.8, intent: "late_delivery", entities: ["Anil"] };
    const model = await modelAnswering([{ kind: "tool", name: "classified_event", args: JSON.stringify(answer) }]);
    const error = await badOutputOf(classifyWithModel(model, "Anil is late"));
    expect(error.message).toContain("entities");
  });

  it("throws CLASSIFIER_BAD_OUTPUT on arguments that break the schema", async () => {
    const model = await modelAnswering([{ kind: "tool", name: "classified_event", args: JSON.stringify({ ...EVENT, type: "BANANA" }) }]);
    const error = await badOutputOf(classifyWithModel(model, "Usko 500 add karo", CONTEXT));
    expect(error.message).toContain("type");
  });

  it("throws CLASSIFIER_BAD_OUTPUT on arguments that are not JSON", async () => {
    const model = await modelAnswering([{ kind: "tool", name: "classified_event", args: "{not json" }]);
    await badOutputOf(classifyWithModel(model, "hi"));
  });

  it("throws CLASSIFIER_BAD_OUTPUT on a plain-text answer", async () => {
    const model = await modelAnswering([{ kind: "text", content: "I think it is a question." }]);
    await badOutputOf(classifyWithModel(model, "hi"));
  });

  it("rethrows HTTP failures unchanged, for the caller to retry", async () => {
    const model = await modelAnswering([{ kind: "status", status: 503 }]);
    const error = await classifyWithModel(model, "hi").catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(MemoryGraphError);
    expect(error).toMatchObject({ status: 503 });
  });
});

describe("classifyWithModel with other models", () => {
  it("accepts a fake model's JSON answer", async () => {
    const model = new FakeListChatModel({ responses: [JSON.stringify(EVENT)] });
    expect(await classifyWithModel(model, "Usko 500 add karo", CONTEXT)).toEqual(EVENT);
  });

  it("rejects a fake model's prose", async () => {
    const model = new FakeListChatModel({ responses: ["no idea"] });
    await badOutputOf(classifyWithModel(model, "hi"));
  });
});

describe("summarizeWithModel", () => {
  const messages = [
    { role: "user" as const, text: "What does premium cost?", id: "u1" },
    { role: "assistant" as const, text: "990 baht a month.", id: "a1" },
  ];

  it("returns the model's bullets, trimmed", async () => {
    const model = new FakeListChatModel({ responses: ["\n- Premium costs 990 baht a month\n- User asked about plans\n"] });
    expect(await summarizeWithModel(model, messages)).toBe("- Premium costs 990 baht a month\n- User asked about plans");
  });

  it("throws on an empty answer", async () => {
    const model = new FakeListChatModel({ responses: ["   "] });
    await expect(summarizeWithModel(model, messages)).rejects.toMatchObject({ code: "SUMMARIZER_EMPTY_OUTPUT", kind: "upstream" });
  });

  it("asks ChatOpenAI at temperature 0.2 with the transcript", async () => {
    const model = await modelAnswering([{ kind: "text", content: "- Premium is 990 baht" }]);
    expect(await summarizeWithModel(model, messages)).toBe("- Premium is 990 baht");
    const request = stub?.requests[0] ?? {};
    expect(request.temperature).toBe(0.2);
    expect(JSON.stringify(request.messages)).toContain("990 baht a month.");
    expect(model.temperature).toBeUndefined();
  });
});
