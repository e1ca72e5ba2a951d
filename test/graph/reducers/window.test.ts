import { AIMessage, HumanMessage, RemoveMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import fc from "fast-check";
import { MemoryGraphError } from "../../../src/errors.js";
import { isPinned, textOf } from "../../../src/messages/message-meta.js";
import {
  DEFAULT_WINDOW_LIMITS,
  appendAndTrim,
  estimateTokens,
  trimWindow,
  trimWindowWithReport,
  type WindowLimits,
} from "../../../src/graph/reducers.js";
import { conversation, limitsArb, messagesArb, pinned, toolExchange } from "./fixtures.js";

const ids = (messages: readonly BaseMessage[]): (string | undefined)[] => messages.map((m) => m.id);
const wide: WindowLimits = { maxMessages: 100, maxChars: 100_000 };

describe("trimWindow by count and characters", () => {
  it.each([
    { max: 3, n: 5, kept: ["m2", "m3", "m4"] },
    { max: 10, n: 5, kept: ["m0", "m1", "m2", "m3", "m4"] },
    { max: 1, n: 4, kept: ["m3"] },
    { max: 0, n: 4, kept: ["m3"] },
    { max: 2, n: 0, kept: [] },
  ])("keeps $kept of $n when maxMessages=$max", ({ max, n, kept }) => {
    const input = Object.freeze(conversation(n));
    expect(ids(trimWindow(input, { maxMessages: max, maxChars: 100_000 }))).toEqual(kept);
  });

  it.each([
    // "message i" is 9 characters.
    { maxChars: 27, kept: ["m2", "m3", "m4"], byChars: 2 },
    { maxChars: 26, kept: ["m3", "m4"], byChars: 3 },
    { maxChars: 0, kept: ["m4"], byChars: 4 },
  ])("keeps $kept when maxChars=$maxChars", ({ maxChars, kept, byChars }) => {
    const { messages, report } = trimWindowWithReport(Object.freeze(conversation(5)), { maxMessages: 10, maxChars });
    expect(ids(messages)).toEqual(kept);
    expect(report).toEqual({ beforeCount: 5, afterCount: kept.length, trimmedByCount: 0, trimmedByChars: byChars, trimmedByTokens: 0 });
  });

  it("charges drops to count first, then characters, then tokens", () => {
    const input = conversation(6, (i) => "x".repeat(40 * (i + 1)));
    const { messages, report } = trimWindowWithReport(input, { maxMessages: 5, maxChars: 650, maxTokens: 110 });
    // Sizes 40…240. Count drops m0; chars (800) drop m1, m2 → 600; tokens (600 / 4 = 150) drop m3 → 110.
    expect(ids(messages)).toEqual(["m4", "m5"]);
    expect(report).toEqual({ beforeCount: 6, afterCount: 2, trimmedByCount: 1, trimmedByChars: 2, trimmedByTokens: 1 });
  });

  it("keeps the newest message even when it alone exceeds maxChars and maxTokens", () => {
    const input = [new HumanMessage({ id: "old", content: "hi" }), new HumanMessage({ id: "big", content: "y".repeat(500) })];
    expect(ids(trimWindow(input, { maxMessages: 5, maxChars: 10, maxTokens: 5 }))).toEqual(["big"]);
  });

  it("uses DEFAULT_WINDOW_LIMITS of 20 messages and 8000 characters", () => {
    expect(DEFAULT_WINDOW_LIMITS).toEqual({ maxMessages: 20, maxChars: 8000 });
    expect(trimWindow(conversation(30), DEFAULT_WINDOW_LIMITS)).toHaveLength(20);
  });

  it.each([{ maxMessages: -1, maxChars: 10 }, { maxMessages: 1, maxChars: Number.NaN }, { maxMessages: 1, maxChars: 1, maxTokens: -5 }])(
    "rejects bad limits %o with INVALID_WINDOW_LIMITS",
    (limits) => {
      expect(() => trimWindow([], limits)).toThrow(expect.objectContaining({ code: "INVALID_WINDOW_LIMITS" }) as unknown);
      expect(() => appendAndTrim(limits)).toThrow(MemoryGraphError);
    },
  );
});

describe("trimWindow with pinned messages", () => {
  it("never drops pinned messages, counts them, and keeps their positions", () => {
    const input = Object.freeze([pinned("p0"), ...conversation(4), pinned("p1"), new HumanMessage({ id: "last", content: "now" })]);
    const kept = trimWindow(input, { maxMessages: 4, maxChars: 100_000 });
    expect(ids(kept)).toEqual(["p0", "m3", "p1", "last"]);
  });

  it("keeps every pinned message plus the newest other one when pinned alone exceed the limits", () => {
    const input = [pinned("p0", "a".repeat(50)), pinned("p1", "b".repeat(50)), ...conversation(3)];
    const { messages, report } = trimWindowWithReport(input, { maxMessages: 1, maxChars: 10 });
    expect(ids(messages)).toEqual(["p0", "p1", "m2"]);
    expect(report.trimmedByCount).toBe(2);
  });
});

describe("trimWindow and tool messages", () => {
  it("drops leading ToolMessages whose calling AIMessage was trimmed, charged to the same limit", () => {
    const input = [...conversation(2), ...toolExchange("x", ["c1", "c2"]), new AIMessage({ id: "answer", content: "done" })];
    // Count drops m0, m1, x-ai, x-c1; x-c2 would lead as an orphan, so it goes too.
    const { messages, report } = trimWindowWithReport(input, { maxMessages: 2, maxChars: 100_000 });
    expect(ids(messages)).toEqual(["answer"]);
    expect(report).toEqual({ beforeCount: 6, afterCount: 1, trimmedByCount: 5, trimmedByChars: 0, trimmedByTokens: 0 });
  });

  it("charges orphans to the limit that dropped their AIMessage", () => {
    const input = [...toolExchange("x", ["c1", "c2", "c3"]), new HumanMessage({ id: "q", content: "z".repeat(10) })];
    // count drops x-ai; chars (8+8+8+10 = 34 > 20) drop x-c1, x-c2; x-c3 is an orphan of x-ai → count.
    const { messages, report } = trimWindowWithReport(input, { maxMessages: 4, maxChars: 20 });
    expect(ids(messages)).toEqual(["q"]);
    expect(report).toMatchObject({ trimmedByCount: 2, trimmedByChars: 2 });
  });

  it("keeps a tool exchange whole when its AIMessage is kept", () => {
    const input = [...conversation(2), ...toolExchange("x", ["c1"]), new AIMessage({ id: "answer", content: "done" })];
    expect(ids(trimWindow(input, { maxMessages: 3, maxChars: 100_000 }))).toEqual(["x-ai", "x-c1", "answer"]);
  });

  it("keeps a newest ToolMessage even when its AIMessage is trimmed (the newest is never dropped)", () => {
    const input = toolExchange("x", ["c1"]);
    expect(ids(trimWindow(input, { maxMessages: 1, maxChars: 100 }))).toEqual(["x-c1"]);
  });
});

describe("trimWindow properties", () => {
  it("holds every window invariant (property)", () => {
    fc.assert(
      fc.property(messagesArb, limitsArb, (input, limits) => {
        const frozen = Object.freeze([...input]);
        const snapshot = frozen.map((m) => JSON.stringify(m));
        const { messages: kept, report } = trimWindowWithReport(frozen, limits);
        const pinnedCount = input.filter(isPinned).length;

        expect(kept.length).toBeLessThanOrEqual(Math.max(limits.maxMessages, pinnedCount + 1));
        // Order preserved: a subsequence of the input.
        let cursor = 0;
        for (const message of kept) {
          while (cursor < input.length && input[cursor] !== message) cursor += 1;
          expect(cursor).toBeLessThan(input.length);
          cursor += 1;
        }
        if (input.length > 0) expect(kept.at(-1)).toBe(input.at(-1));
        for (const p of input.filter(isPinned)) expect(kept).toContain(p);
        const firstFree = kept.findIndex((m) => !isPinned(m));
        const freeCount = kept.filter((m) => !isPinned(m)).length;
        if (report.afterCount < report.beforeCount && freeCount > 1) {
          expect(ToolMessage.isInstance(kept[firstFree])).toBe(false);
        }
        // Limits hold unless only the newest non-pinned message is left.
        if (freeCount > 1) {
          expect(kept.reduce((n, m) => n + textOf(m).length, 0)).toBeLessThanOrEqual(limits.maxChars);
          if (limits.maxTokens !== undefined) {
            expect(kept.reduce((n, m) => n + estimateTokens(textOf(m)), 0)).toBeLessThanOrEqual(limits.maxTokens);
          }
        }
        expect(report.beforeCount - report.afterCount).toBe(report.trimmedByChars + report.trimmedByCount + report.trimmedByTokens);
        expect(report.afterCount).toBe(kept.length);
        expect(frozen.map((m) => JSON.stringify(m))).toEqual(snapshot);
        // Idempotent: a trimmed window is left as it is.
        expect(trimWindow(kept, limits)).toEqual(kept);
      }),
      { numRuns: 200 },
    );
  });
});

describe("appendAndTrim", () => {
  it("appends, upserts by id and honours RemoveMessage", () => {
    const reduce = appendAndTrim(wide);
    const current = Object.freeze(conversation(3)) as BaseMessage[];
    const next = reduce(current, [new AIMessage({ id: "m1", content: "edited" }), new RemoveMessage({ id: "m0" }), new HumanMessage({ id: "n", content: "new" })]);
    expect(ids(next)).toEqual(["m1", "m2", "n"]);
    expect(textOf(next[0]!)).toBe("edited");
    expect(textOf(current[1]!)).toBe("message 1");
  });

  it("clears the window on REMOVE_ALL_MESSAGES", () => {
    const next = appendAndTrim(wide)(conversation(3), [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), new HumanMessage({ id: "fresh", content: "hi" })]);
    expect(ids(next)).toEqual(["fresh"]);
  });

  it("assigns ids to copies, leaving id-less inputs untouched", () => {
    const incoming = Object.freeze(new HumanMessage("no id yet"));
    const held = Object.freeze(new AIMessage("held without id"));
    const next = appendAndTrim(wide)(Object.freeze([held]) as BaseMessage[], incoming);
    expect(next).toHaveLength(2);
    expect(next.every((m) => typeof m.id === "string" && m.id.length > 0)).toBe(true);
    expect(incoming.id).toBeUndefined();
    expect(held.id).toBeUndefined();
    expect(next.map(textOf)).toEqual(["held without id", "no id yet"]);
  });

  it("trims after appending", () => {
    const next = appendAndTrim({ maxMessages: 3, maxChars: 1000 })(conversation(3), new HumanMessage({ id: "n", content: "hi" }));
    expect(ids(next)).toEqual(["m1", "m2", "n"]);
  });

  it("is idempotent on an empty update and bounded in size (property)", () => {
    fc.assert(
      fc.property(messagesArb, messagesArb, limitsArb, (current, update, limits) => {
        const reduce = appendAndTrim(limits);
        const renamed = update.map((m) => Object.assign(Object.create(Object.getPrototypeOf(m) as object) as BaseMessage, m, { id: `u-${m.id ?? ""}` }));
        const once = reduce(Object.freeze([...current]) as BaseMessage[], renamed);
        const pinnedCount = [...current, ...renamed].filter(isPinned).length;
        expect(once.length).toBeLessThanOrEqual(Math.max(limits.maxMessages, pinnedCount + 1));
        expect(ids(reduce(once, []))).toEqual(ids(once));
      }),
      { numRuns: 100 },
    );
  });
});

describe("estimateTokens", () => {
  it.each([
    { text: "", tokens: 0 },
    { text: "a", tokens: 1 },
    { text: "abcd", tokens: 1 },
    { text: "abcde", tokens: 2 },
    { text: "hello world, how are you?", tokens: 7 },
    { text: "สวัสดีครับ", tokens: 5 },
    { text: "你好世界", tokens: 4 },
    { text: "こんにちは", tokens: 5 },
    { text: "안녕하세요", tokens: 5 },
    { text: "😀😀", tokens: 2 },
  ])("$text → $tokens", ({ text, tokens }) => {
    expect(estimateTokens(text)).toBe(tokens);
  });

  it("is monotone in length and positive on non-empty text (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string({ unit: "binary" }), (a, b) => {
        expect(estimateTokens(a + b)).toBeGreaterThanOrEqual(estimateTokens(a));
        expect(estimateTokens(a + b)).toBeLessThanOrEqual(estimateTokens(a) + estimateTokens(b));
        if (a.length > 0) expect(estimateTokens(a)).toBeGreaterThan(0);
      }),
      { numRuns: 200 },
    );
  });
});
