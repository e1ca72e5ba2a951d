import { InMemoryStore } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { Classifications } from "../../src/nodes/classification.js";
import { createClassifyEventNode } from "../../src/nodes/classify-event.js";
import { testDeps } from "../support/deps.js";
import { FailingChatModel, RecordingChatModel } from "../support/models.js";
import { midTurnState } from "./helpers.js";

const ANSWER = JSON.stringify({ type: "COMPLAINT", importance: 0.8, intent: "late_delivery" });
const config = (threadId: string) => ({ configurable: { thread_id: threadId } });

describe("Classifications", () => {
  it("hands classify_event the classification started for its turn: one model call, its usage kept", async () => {
    const store = new InMemoryStore();
    const model = new RecordingChatModel([ANSWER]);
    const deps = testDeps({ chatModel: model });
    const classifications = new Classifications(deps);
    const state = await midTurnState(store, "my parcel is late");
    classifications.start(state, config("t1"));
    const update = await createClassifyEventNode(deps, classifications)(state, { store, ...config("t1") });
    expect(model.prompts).toHaveLength(1);
    expect(update.event).toMatchObject({ type: "COMPLAINT", intent: "late_delivery", classifiedBy: "model" });
  });

  it("classifies anew when the turn, message, context or thread differ from the one started", async () => {
    const store = new InMemoryStore();
    const model = new RecordingChatModel([ANSWER]);
    const classifications = new Classifications(testDeps({ chatModel: model }));
    const started = await midTurnState(store, "my parcel is late");
    classifications.start(started, config("t1"));
    const others = [
      [started, config("t2")],
      [await midTurnState(store, "my parcel is very late"), config("t1")],
      [{ ...started, session: { ...started.session, lastIntent: "refund_request" } }, config("t1")],
    ] as const;
    for (const [state, runConfig] of others) await classifications.take(state, runConfig)?.result;
    expect(model.prompts).toHaveLength(4);
    // The one started is still there for its own turn.
    await classifications.take(started, config("t1"))?.result;
    expect(model.prompts).toHaveLength(4);
  });

  it("passes a started call's failure to classify_event, which falls back to the keywords", async () => {
    const store = new InMemoryStore();
    const model = new FailingChatModel();
    const deps = testDeps({ chatModel: model, retry: { retries: 0, baseDelayMs: 1 } });
    const classifications = new Classifications(deps);
    const state = await midTurnState(store, "This is broken, I want a refund");
    classifications.start(state, config("t1"));
    const update = await createClassifyEventNode(deps, classifications)(state, { store, ...config("t1") });
    expect(model.calls).toBe(1);
    expect(update.event).toMatchObject({ type: "COMPLAINT", classifiedBy: "keywords" });
    expect(update.errors).toEqual([expect.objectContaining({ code: "CLASSIFIER_FALLBACK" })]);
  });

  it("starts nothing without a model", async () => {
    const classifications = new Classifications(testDeps({ chatModel: null }));
    const state = await midTurnState(new InMemoryStore(), "hi");
    classifications.start(state, config("t1"));
    expect(classifications.take(state, config("t1"))).toBeNull();
  });
});
