import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local OpenAI-compatible provider paced like a real model: `ttftMs` before the first token,
 * then `tokens` pieces `tokenGapMs` apart (a non-streamed answer arrives after all of them), and
 * embeddings that answer after `embeddingsMs`. Chat answers report usage, as providers do.
 */
export interface Pacing {
  ttftMs: number;
  tokens: number;
  tokenGapMs: number;
  embeddingsMs: number;
  dimensions: number;
}

export interface PacedProvider {
  baseUrl: string;
  pacing: Pacing;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function bodyOf(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>;
}

function vectorOf(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  for (let i = 0; i < text.length; i += 1) v[(text.charCodeAt(i) * 31 + i) % dims]! += 1;
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

const EVENT = { type: "INQUIRY", importance: 0.6, intent: "question", entities: [], language: "en", payload: {}, attributeUpdates: [] };
const usage = { prompt_tokens: 120, completion_tokens: 20, total_tokens: 140 };

async function chat(res: ServerResponse, body: Record<string, unknown>, pacing: Pacing): Promise<void> {
  const tools = body.tools as { function: { name: string } }[] | undefined;
  const pieces = Array.from({ length: pacing.tokens }, (_, i) => `w${i} `);
  if (body.stream === true && !tools?.length) {
    res.writeHead(200, { "content-type": "text/event-stream" });
    await sleep(pacing.ttftMs);
    for (const [i, piece] of pieces.entries()) {
      if (i > 0) await sleep(pacing.tokenGapMs);
      const delta = i === 0 ? { role: "assistant", content: piece } : { content: piece };
      res.write(`data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "paced", choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
    }
    res.write(`data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "paced", choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage })}\n\n`);
    res.end("data: [DONE]\n\n");
    return;
  }
  await sleep(pacing.ttftMs + (pacing.tokens - 1) * pacing.tokenGapMs);
  const message = tools?.length
    ? { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: tools[0]!.function.name, arguments: JSON.stringify(EVENT) } }] }
    : { role: "assistant", content: pieces.join("") };
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ id: "c", object: "chat.completion", created: 1, model: "paced", choices: [{ index: 0, message, finish_reason: "stop" }], usage }));
}

export async function startPacedProvider(pacing: Pacing): Promise<PacedProvider> {
  const provider: PacedProvider = { baseUrl: "", pacing, close: async () => undefined };
  const server = createServer((req, res) => {
    void bodyOf(req).then(async (body) => {
      if ((req.url ?? "").endsWith("/embeddings")) {
        await sleep(provider.pacing.embeddingsMs);
        const inputs = ([] as string[]).concat(body.input as string | string[]);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", model: "paced", data: inputs.map((text, index) => ({ object: "embedding", index, embedding: vectorOf(text, provider.pacing.dimensions) })), usage: { prompt_tokens: 1, total_tokens: 1 } }));
        return;
      }
      await chat(res, body, provider.pacing);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  provider.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  provider.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return provider;
}
