import { AIMessage, ChatMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { JsonPlusSerializer } from "@langchain/langgraph-checkpoint";
import fc from "fast-check";
import { MemoryGraphError } from "../../src/errors.js";
import {
  META_KEY,
  fileRefSchema,
  isPinned,
  messageRole,
  metaOf,
  textOf,
  withMeta,
  type FileRef,
} from "../../src/messages/message-meta.js";

const image: FileRef = { type: "image", transferMethod: "local_file", uploadFileId: "up-1", belongsTo: "user" };

function deepFreeze<T extends object>(message: T): T {
  for (const value of Object.values(message)) {
    if (typeof value === "object" && value !== null && !Object.isFrozen(value)) deepFreeze(value as object);
  }
  return Object.freeze(message);
}

describe("metaOf", () => {
  it("defaults parentId to null and createdAt to '' when a message has no meta", () => {
    expect(metaOf(new HumanMessage("hi"))).toEqual({ parentId: null, createdAt: "" });
  });

  it.each([
    { raw: "not an object", expected: { parentId: null, createdAt: "" } },
    { raw: { parentId: 7, createdAt: false, pinned: "yes" }, expected: { parentId: null, createdAt: "" } },
    { raw: { parentId: "p", createdAt: "2024-01-01T00:00:00Z", pinned: true }, expected: { parentId: "p", createdAt: "2024-01-01T00:00:00Z", pinned: true } },
  ])("reads $raw as $expected", ({ raw, expected }) => {
    const message = new HumanMessage({ content: "x", additional_kwargs: { [META_KEY]: raw } });
    expect(metaOf(message)).toEqual(expected);
  });
});

describe("withMeta", () => {
  it.each<{ name: string; make: () => BaseMessage }>([
    { name: "HumanMessage", make: () => new HumanMessage({ id: "h1", content: "hello", name: "alice" }) },
    {
      name: "AIMessage with tool calls",
      make: () =>
        new AIMessage({
          id: "a1",
          content: [{ type: "text", text: "calling" }],
          tool_calls: [{ id: "c1", name: "lookup", args: { q: 1 }, type: "tool_call" }],
          response_metadata: { model_name: "m" },
          usage_metadata: { input_tokens: 1, output_tokens: 2, total_tokens: 3 },
        }),
    },
    { name: "ToolMessage", make: () => new ToolMessage({ id: "t1", content: "42", tool_call_id: "c1", name: "lookup", status: "success" }) },
    { name: "SystemMessage", make: () => new SystemMessage({ id: "s1", content: "be kind", additional_kwargs: { other: 1 } }) },
    { name: "ChatMessage", make: () => new ChatMessage({ id: "g1", content: "hey", role: "user" }) },
  ])("returns a new $name of the same class with every field kept", ({ make }) => {
    const original = deepFreeze(make());
    const copy = withMeta(original, { parentId: "p1", createdAt: "2024-05-01T10:00:00.000Z", files: [image] });

    expect(copy).not.toBe(original);
    expect(copy.constructor).toBe(original.constructor);
    expect(copy.getType()).toBe(original.getType());
    expect(copy.id).toBe(original.id);
    expect(copy.content).toEqual(original.content);
    expect(copy.name).toBe(original.name);
    expect(copy.response_metadata).toEqual(original.response_metadata);
    for (const key of ["tool_calls", "usage_metadata", "tool_call_id", "status", "role"]) {
      expect((copy as unknown as Record<string, unknown>)[key]).toEqual((original as unknown as Record<string, unknown>)[key]);
    }
    expect(metaOf(copy)).toEqual({ parentId: "p1", createdAt: "2024-05-01T10:00:00.000Z", files: [image] });
    expect(metaOf(original)).toEqual({ parentId: null, createdAt: "" });
    expect(copy.additional_kwargs["other"]).toBe(original.additional_kwargs["other"]);
  });

  it("merges with the existing meta and ignores undefined keys", () => {
    const first = withMeta(new HumanMessage("x"), { parentId: "p", createdAt: "t1", pinned: false });
    const second = withMeta(first, { createdAt: "t2", parentId: undefined });
    expect(metaOf(second)).toEqual({ parentId: "p", createdAt: "t2", pinned: false });
    expect(metaOf(first)).toEqual({ parentId: "p", createdAt: "t1", pinned: false });
  });

  it("keeps meta and files through LangGraph's checkpoint serializer", async () => {
    const serde = new JsonPlusSerializer();
    const remote: FileRef = { type: "document", transferMethod: "remote_url", url: "https://example.com/a.pdf", belongsTo: "assistant" };
    const messages = [
      withMeta(new HumanMessage({ id: "h1", content: "look" }), { parentId: null, createdAt: "2024-01-01T00:00:00Z", files: [image] }),
      withMeta(new AIMessage({ id: "a1", content: "ok", tool_calls: [{ id: "c1", name: "f", args: {}, type: "tool_call" }] }), {
        parentId: "h1",
        createdAt: "2024-01-01T00:00:01Z",
        files: [remote],
      }),
      withMeta(new SystemMessage({ id: "s1", content: "rules" }), { pinned: true }),
    ];
    const [type, bytes] = await serde.dumpsTyped(messages);
    const restored = (await serde.loadsTyped(type, bytes)) as BaseMessage[];

    expect(restored).toHaveLength(3);
    expect(restored.map((m) => m.getType())).toEqual(["human", "ai", "system"]);
    expect(restored.map((m) => m.id)).toEqual(["h1", "a1", "s1"]);
    expect(metaOf(restored[0]!)).toEqual({ parentId: null, createdAt: "2024-01-01T00:00:00Z", files: [image] });
    expect(metaOf(restored[1]!)).toEqual({ parentId: "h1", createdAt: "2024-01-01T00:00:01Z", files: [remote] });
    expect((restored[1] as AIMessage).tool_calls?.[0]?.id).toBe("c1");
    expect(isPinned(restored[2]!)).toBe(true);
  });

  it("round-trips any meta (property)", () => {
    fc.assert(
      fc.property(fc.option(fc.string(), { nil: null }), fc.string(), fc.boolean(), (parentId, createdAt, pin) => {
        const original = Object.freeze(new HumanMessage({ id: "x", content: "c" }));
        const copy = withMeta(original, { parentId, createdAt, pinned: pin });
        expect(metaOf(copy)).toEqual({ parentId, createdAt, pinned: pin });
        expect(metaOf(original)).toEqual({ parentId: null, createdAt: "" });
      }),
      { numRuns: 200 },
    );
  });
});

describe("isPinned", () => {
  it.each([
    { name: "pinned system", message: withMeta(new SystemMessage("s"), { pinned: true }), expected: true },
    { name: "unpinned system", message: withMeta(new SystemMessage("s"), { pinned: false }), expected: false },
    { name: "system without meta", message: new SystemMessage("s"), expected: false },
    { name: "pinned human", message: withMeta(new HumanMessage("h"), { pinned: true }), expected: false },
  ])("$name → $expected", ({ message, expected }) => {
    expect(isPinned(message)).toBe(expected);
  });
});

describe("textOf", () => {
  it.each([
    { content: "plain", expected: "plain" },
    { content: [], expected: "" },
    { content: [{ type: "text", text: "a" }, { type: "image_url", image_url: { url: "https://x/y.png" } }, { type: "text", text: "b" }], expected: "a\nb" },
  ])("reads $expected", ({ content, expected }) => {
    expect(textOf(new HumanMessage({ content }))).toBe(expected);
  });
});

describe("messageRole", () => {
  it.each<{ message: BaseMessage; role: string }>([
    { message: new HumanMessage("h"), role: "user" },
    { message: new AIMessage("a"), role: "assistant" },
    { message: new SystemMessage("s"), role: "system" },
    { message: new ToolMessage({ content: "t", tool_call_id: "c" }), role: "tool" },
    { message: new ChatMessage({ content: "g", role: "assistant" }), role: "assistant" },
  ])("$role", ({ message, role }) => {
    expect(messageRole(message)).toBe(role);
  });

  it("throws UNKNOWN_MESSAGE_ROLE for a type with no chat role", () => {
    expect(() => messageRole(new RemoveMessage({ id: "x" }))).toThrow(MemoryGraphError);
    expect(() => messageRole(new ChatMessage({ content: "g", role: "narrator" }))).toThrow(/narrator/);
  });
});

describe("fileRefSchema", () => {
  it.each([
    { ref: image, ok: true },
    { ref: { type: "video", transferMethod: "tool_file", toolFileId: "tf", belongsTo: "assistant" }, ok: true },
    { ref: { type: "audio", transferMethod: "remote_url", url: "https://example.com/a.mp3", belongsTo: "user" }, ok: true },
    { ref: { type: "image", transferMethod: "local_file", belongsTo: "user" }, ok: false },
    { ref: { type: "image", transferMethod: "local_file", toolFileId: "tf", belongsTo: "user" }, ok: false },
    { ref: { type: "image", transferMethod: "local_file", uploadFileId: "u", url: "https://x.y/z", belongsTo: "user" }, ok: false },
    { ref: { type: "image", transferMethod: "remote_url", url: "not a url", belongsTo: "user" }, ok: false },
    { ref: { type: "spreadsheet", transferMethod: "local_file", uploadFileId: "u", belongsTo: "user" }, ok: false },
    { ref: { type: "image", transferMethod: "tool_file", toolFileId: "t", belongsTo: "bot" }, ok: false },
    { ref: { ...image, size: 10 }, ok: false },
  ])("$ref.transferMethod $ref.type → ok=$ok", ({ ref, ok }) => {
    expect(fileRefSchema.safeParse(ref).success).toBe(ok);
  });
});
