import { FakeListChatModel } from "@langchain/core/utils/testing";
import { createMemoryGraph } from "../../src/app/create-memory-graph.js";
it("streams", async () => {
  const g = await createMemoryGraph({ backend: "memory", chatModel: new FakeListChatModel({ responses: ["Hello there"] }) });
  const toks: string[] = [];
  const r = await g.streamTurn({ tenantId: "t", userId: "u", sessionId: "s", message: "hi" }, (t) => toks.push(t));
  console.log(toks, r.status, r.candidate?.text);
  const g2 = await createMemoryGraph({ backend: "memory", chatModel: null });
  const toks2: string[] = [];
  const r2 = await g2.streamTurn({ tenantId: "t", userId: "u", sessionId: "s", message: "hi" }, (t) => toks2.push(t));
  console.log(toks2, r2.status, r2.candidate?.text);
});
