import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { OpenAIEmbeddings } from "@langchain/openai";
import { SqliteStore } from "../../src/storage/sqlite/store.js";
import type { RankedItem } from "../../src/memory/ports/store.js";
import { namespaces } from "../../src/memory/namespaces.js";
import { searchSimilar } from "../../src/memory/similar.js";
import { saveTranscriptMessage } from "../../src/memory/transcript.js";

const DIMENSIONS = 64;

/** A deterministic "embedding": words hashed into buckets, so texts sharing words point alike. */
function fakeEmbedding(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    let hash = 7;
    for (const ch of word.slice(0, 5)) hash = (hash * 31 + ch.charCodeAt(0)) % 100_003;
    vector[hash % DIMENSIONS] = (vector[hash % DIMENSIONS] ?? 0) + 1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((x) => x / norm);
}

interface EmbeddingsStub {
  baseUrl: string;
  /** The `input` of every /v1/embeddings request, in order. */
  inputs: string[][];
  close(): Promise<void>;
}

/** A local OpenAI-compatible server answering POST /v1/embeddings (float or base64 encoding). */
async function startEmbeddingsStub(): Promise<EmbeddingsStub> {
  const inputs: string[][] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      if (req.method !== "POST" || !req.url?.endsWith("/embeddings")) {
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { input: string | string[]; encoding_format?: string; model: string };
      const input = Array.isArray(body.input) ? body.input : [body.input];
      inputs.push(input);
      const data = input.map((text, index) => {
        const vector = fakeEmbedding(text);
        const embedding = body.encoding_format === "base64" ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector;
        return { object: "embedding", index, embedding };
      });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    inputs,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

describe("OpenAI embeddings in the SQLite store (local stub, real @langchain/openai client)", () => {
  let stub: EmbeddingsStub;
  let store: SqliteStore;
  const scope = { tenantId: "t1", userId: "u1", sessionId: "s1" };
  const ns = namespaces.transcript(scope);

  beforeAll(async () => {
    stub = await startEmbeddingsStub();
    const embeddings = new OpenAIEmbeddings({
      apiKey: "test-key",
      model: "text-embedding-3-small",
      configuration: { baseURL: stub.baseUrl },
      maxRetries: 0,
    });
    store = SqliteStore.open(":memory:", { embeddings });
  });
  afterAll(async () => {
    store.close();
    await stub.close();
  });

  it("embeds each item once, at write time, with its speaker and date", async () => {
    await store.batch(
      [
        { id: "m1", text: "My sister plays cello in an orchestra", speaker: "Ana" },
        { id: "m2", text: "We fixed the leaking kitchen tap", speaker: "Ben" },
      ].map((m, i) => ({
        namespace: ns,
        key: m.id,
        value: { ...m, role: "user", parentId: null, sessionId: "s1", createdAt: `2024-02-0${i + 1}T10:00:00Z` },
      })),
    );
    await saveTranscriptMessage(store, scope, {
      id: "m3",
      role: "assistant",
      text: "Orchestra concerts are on Fridays",
      parentId: "m2",
      sessionId: "s1",
      createdAt: "2024-02-03T10:00:00Z",
    });
    // The client sends newlines as spaces.
    expect(stub.inputs).toEqual([
      ["Ana: My sister plays cello in an orchestra 1 February 2024", "Ben: We fixed the leaking kitchen tap 2 February 2024"],
      ["Orchestra concerts are on Fridays 3 February 2024"],
    ]);
  });

  it("embeds the query once per search and reads stored vectors, not the model, for items", async () => {
    const before = stub.inputs.length;
    // "cellos" stems to "cello" and matches m1 lexically too; the vector must agree.
    const hits = (await store.search(ns, { query: "sister cellos", limit: 5 })) as RankedItem[];
    expect(stub.inputs.slice(before)).toEqual([["sister cellos"]]);
    expect(hits[0]?.key).toBe("m1");
    expect(hits[0]?.ranking?.vector).toBeGreaterThanOrEqual(0.45);

    const similar = await searchSimilar(store, namespaces.sessions(scope), {
      query: "orchestra",
      limit: 5,
      maxCandidates: 200,
      minVectorScore: 0.45,
      excludeIds: new Set(),
    });
    expect(stub.inputs.length).toBe(before + 2);
    expect(similar.map((m) => m.id)).toEqual(expect.arrayContaining(["m1", "m3"]));
    expect(similar[0]?.turnIds).toEqual([similar[0]?.id]);
  });
});
