import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local OpenAI-compatible provider for end-to-end tests: chat completions (plain, streamed,
 * and tool calls for structured output) and embeddings, with a switchable failure mode. Answers
 * that are not streamed report usage: one token in and one out for a chat completion, and
 * `embeddingTokensOf` its inputs for embeddings.
 */
export type ProviderMode = "ok" | "error500" | "timeout" | "malformed";

export interface Provider {
  baseUrl: string;
  mode: ProviderMode;
  /** Every request body received, with its path and when it came (`performance.now()`). */
  requests: { path: string; body: Record<string, unknown>; at: number }[];
  /** Requests this matches are recorded and never answered (a call that hangs), whatever the mode. */
  hold: ((body: Record<string, unknown>) => boolean) | null;
  /** How long (ms) the answer to a request takes, when set: a model that takes its time. */
  delay: ((body: Record<string, unknown>) => number) | null;
  /**
   * When set and it returns a promise for a request, the request is answered once that promise
   * settles (a model held until the test lets it go): resolved, as usual; rejected, with a 500.
   */
  gate: ((body: Record<string, unknown>) => Promise<void> | null) | null;
  /** The classification tool call's arguments, when set (default: an INQUIRY with nothing else). */
  classification: Record<string, unknown> | null;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

function lastUserText(body: Record<string, unknown>): string {
  const messages = (body.messages ?? []) as { role: string; content: unknown }[];
  const last = [...messages].reverse().find((m) => m.role === "user");
  return typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
}

function vectorOf(text: string, dims: number): number[] {
  const v = new Array<number>(dims).fill(0);
  for (let i = 0; i < text.length; i += 1) v[text.charCodeAt(i) % dims]! += 1;
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

/** The tokens the stand-in reports for embedding `inputs`: about four characters a token, as OpenAI's rule of thumb. */
export function embeddingTokensOf(inputs: readonly string[]): number {
  return inputs.reduce((sum, text) => sum + Math.max(1, Math.ceil(text.length / 4)), 0);
}

const EVENT = { type: "INQUIRY", importance: 0.8, intent: "question", entities: [], language: "en", payload: {}, attributeUpdates: [] };

function answer(res: ServerResponse, body: Record<string, unknown>, classification: Record<string, unknown> = EVENT): void {
  const tools = body.tools as { function: { name: string } }[] | undefined;
  const reply = `stub reply to: ${lastUserText(body)}`;
  const message = tools?.length
    ? { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: tools[0]!.function.name, arguments: JSON.stringify(classification) } }] }
    : { role: "assistant", content: reply };
  if (body.stream === true && !tools?.length) {
    res.writeHead(200, { "content-type": "text/event-stream" });
    (reply.match(/.{1,8}/g) ?? []).forEach((piece, i) => {
      const delta = i === 0 ? { role: "assistant", content: piece } : { content: piece };
      res.write(`data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "stub", choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
    });
    res.write(`data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "stub", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`);
    res.end("data: [DONE]\n\n");
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ id: "c", object: "chat.completion", created: 1, model: "stub", choices: [{ index: 0, message, finish_reason: "stop" }], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }));
}

export async function startProvider(mode: ProviderMode = "ok"): Promise<Provider> {
  const provider: Provider = { baseUrl: "", mode, requests: [], hold: null, delay: null, gate: null, classification: null, close: async () => undefined };
  const server = createServer((req, res) => {
    void readBody(req).then(async (body) => {
      const path = req.url ?? "";
      provider.requests.push({ path, body, at: performance.now() });
      const wait = provider.delay?.(body) ?? 0;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const refused = await provider.gate?.(body)?.then(
        () => false,
        () => true,
      );
      if (refused) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "provider refused", type: "server_error" } }));
        return;
      }
      if (provider.mode === "timeout" || provider.hold?.(body)) return; // never answers; the client's timeout fires
      if (provider.mode === "error500") {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "provider exploded", type: "server_error" } }));
        return;
      }
      if (provider.mode === "malformed") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"choices": [ {"message": ');
        return;
      }
      if (path.endsWith("/embeddings")) {
        const inputs = ([] as string[]).concat(body.input as string | string[]);
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", model: "stub", data: inputs.map((text, index) => ({ object: "embedding", index, embedding: vectorOf(text, 64) })), usage: { prompt_tokens: embeddingTokensOf(inputs), total_tokens: embeddingTokensOf(inputs) } }));
        return;
      }
      answer(res, body, provider.classification ?? EVENT);
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
