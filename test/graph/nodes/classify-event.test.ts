import { InMemoryStore } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { createClassifyEventNode } from "../../../src/graph/nodes/classify-event.js";
import { namespaces } from "../../../src/memory/namespaces.js";
import type { FactRecord } from "../../../src/memory/records.js";
import { scope, testDeps } from "../../support/deps.js";
import { FailingChatModel } from "../../support/models.js";
import { midTurnState } from "./helpers.js";

describe("classify_event", () => {
  it("falls back to the keyword classifier when the model fails, and records the fallback", async () => {
    const store = new InMemoryStore();
    const model = new FailingChatModel();
    const node = createClassifyEventNode(testDeps({ chatModel: model }));
    const update = await node(await midTurnState(store, "This is broken, I want a refund"), { store });
    expect(model.calls).toBeGreaterThan(0);
    expect(update.event).toMatchObject({ type: "COMPLAINT", classifiedBy: "keywords", saved: true });
    expect(update.errors).toEqual([expect.objectContaining({ node: "classify_event", code: "CLASSIFIER_FALLBACK" })]);
    const saved = await store.get(namespaces.events(scope), "h1");
    expect(saved?.value).toMatchObject({ type: "COMPLAINT", messageId: "h1" });
  });

  it("does not keep an event under the importance threshold", async () => {
    const store = new InMemoryStore();
    const update = await createClassifyEventNode(testDeps())(await midTurnState(store, "hi"), { store });
    expect(update.event?.saved).toBe(false);
    expect(await store.get(namespaces.events(scope), "h1")).toBeNull();
  });

  it("supersedes a changed fact, keeping the old one with the time it stopped being true", async () => {
    const store = new InMemoryStore();
    const deps = testDeps({ now: () => new Date("2026-11-01T10:00:00.000Z") });
    await createClassifyEventNode(deps)(await midTurnState(store, "My phone number is 081-111-1111"), { store });
    const later = testDeps({ now: () => new Date("2026-11-02T10:00:00.000Z") });
    await createClassifyEventNode(later)(await midTurnState(store, "My new phone number is 089-999-9999", {}, "h2"), { store });
    const facts = (await store.search(namespaces.facts(scope), { limit: 10 })).map((i) => i.value as FactRecord);
    const phones = facts.filter((f) => f.key === "phone");
    expect(phones).toHaveLength(2);
    const current = phones.find((f) => f.validTo === null);
    const old = phones.find((f) => f.validTo !== null);
    expect(current?.value).toContain("089");
    expect(old?.value).toContain("081");
    expect(old?.validTo).toBe("2026-11-02T10:00:00.000Z");
  });
});
