import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { buildCandidate } from "../../../src/graph/nodes/build-candidate.js";
import { withMeta } from "../../../src/messages/message-meta.js";
import { stateOf } from "../../support/deps.js";

const turn = { messageId: "h", text: "hi", startedAt: "", regenerated: false, id: "turn-1", replyId: "a", model: "fake", sessionExpired: false };

describe("build_candidate", () => {
  it("builds a proposed text candidate from this turn's reply", () => {
    const reply = withMeta(new AIMessage({ id: "a", content: "hello there" }), { parentId: "h", createdAt: "2026-11-01T10:00:00.000Z" });
    const update = buildCandidate(stateOf({ messages: [new HumanMessage({ id: "h", content: "hi" }), reply], turn }));
    expect(update.candidate).toEqual({ id: "a", kind: "text", status: "proposed", text: "hello there", model: "fake", createdAt: "2026-11-01T10:00:00.000Z" });
    expect(update.llmText).toBe("hello there");
  });

  it("offers no candidate when the turn has no reply (a model error), never an older reply", () => {
    const older = new AIMessage({ id: "old", content: "previous answer" });
    const update = buildCandidate(stateOf({ messages: [older, new HumanMessage({ id: "h", content: "hi" })], turn: { ...turn, replyId: null }, status: "ERROR" }));
    expect(update.candidate).toBeNull();
    expect(update.llmText).toBe("");
  });
});
