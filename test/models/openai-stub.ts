import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** What the stub answers to one chat-completions request. */
export type StubReply =
  | { kind: "tool"; name: string; args: string }
  | { kind: "text"; content: string }
  | { kind: "status"; status: number };

/** A local OpenAI-compatible server that answers /chat/completions from a queue of replies. */
export interface OpenAIStub {
  baseUrl: string;
  requests: Record<string, unknown>[];
  close: () => Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function completion(reply: Exclude<StubReply, { kind: "status" }>): Record<string, unknown> {
  const message =
    reply.kind === "tool"
      ? {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", type: "function", function: { name: reply.name, arguments: reply.args } }],
        }
      : { role: "assistant", content: reply.content };
  return {
    id: "chatcmpl-stub",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "gpt-4o-mini",
    choices: [{ index: 0, message, finish_reason: reply.kind === "tool" ? "tool_calls" : "stop", logprobs: null }],
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
  };
}

/** Starts the stub on 127.0.0.1 with an ephemeral port; the last reply repeats when the queue runs dry. */
export async function startOpenAIStub(replies: StubReply[]): Promise<OpenAIStub> {
  const requests: Record<string, unknown>[] = [];
  let next = 0;
  const server: Server = createServer((req, res) => {
    void bodyOf(req).then((body) => {
      requests.push({ url: req.url, ...(body ? (JSON.parse(body) as Record<string, unknown>) : {}) });
      const reply = replies[Math.min(next, replies.length - 1)];
      next += 1;
      if (!reply || reply.kind === "status") {
        res.writeHead(reply?.status ?? 500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "stub failure", type: "server_error" } }));
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(completion(reply)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
