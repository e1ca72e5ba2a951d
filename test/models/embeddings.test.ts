import { OpenAIEmbeddings } from "@langchain/openai";
import { createEmbeddings } from "../../src/models/embeddings.js";

describe("createEmbeddings", () => {
  it("computes no vectors without a key or base URL (lexical ranking only; the local n-gram vectors add nothing)", () => {
    expect(createEmbeddings({ model: "text-embedding-3-small", timeoutMs: 1000 })).toBeUndefined();
  });

  it("uses an OpenAI-compatible server when one is configured", () => {
    const embeddings = createEmbeddings({ baseUrl: "http://127.0.0.1:1/v1", model: "text-embedding-3-small", timeoutMs: 1000 });
    expect(embeddings).toBeInstanceOf(OpenAIEmbeddings);
  });
});
