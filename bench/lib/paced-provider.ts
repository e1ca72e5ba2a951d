import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { classifyByKeywords } from "../../src/rules/keyword-classifier.js";

/**
 * A local OpenAI-compatible provider paced like a real model: `ttftMs` before the first token,
 * then one token every `tokenGapMs`. A reply is `tokens` pieces, streamed or not. A non-streamed
 * answer arrives when its last token would have: `ttftMs + (n − 1) × tokenGapMs` for an answer of
 * n tokens — a tool call's arguments counted at four characters a token (OpenAI's rule of thumb;
 * o200k_base counts a little more for JSON), not priced as a reply of `tokens`. A tool call's
 * arguments follow the JSON schema the request sends (see `toolArguments`), so a schema that
 * asks for less gets a shorter, faster answer, as from a real model. Embeddings answer after
 * `embeddingsMs`. Answers report usage, as providers do: the completion tokens they were paced by,
 * and prompt tokens by the same rule of thumb (the request's messages and tools as JSON, four
 * characters a token; an embeddings request's inputs). What each answer reported is tallied by
 * caller — the API key of the request's Authorization header, so that a benchmark gives each
 * service its own — and by kind of call (`tokens`).
 */
export interface Pacing {
  ttftMs: number;
  tokens: number;
  tokenGapMs: number;
  embeddingsMs: number;
  dimensions: number;
  /** Tokens of a non-streamed text answer (a summary, a title); default: `tokens`. */
  textTokens?: number;
  /**
   * A reply's first token names the user message it answers (a number made from its text), so
   * that the replies of a session differ, as a real model's do; default: every reply is the same
   * `w0 … w<tokens − 1>` (whose embedding a service that reuses vectors computes once).
   */
  distinctReplies?: boolean;
}

/** What a call was: a streamed reply, a non-streamed tool call (classification) or text (summary), embeddings. */
export type CallKind = "reply" | "tool_call" | "text" | "embeddings";

/** What the calls of one kind reported using: how many, tokens in (prompt) and out (completion). */
export interface TokenTally {
  calls: number;
  input: number;
  output: number;
}

export interface PacedProvider {
  baseUrl: string;
  pacing: Pacing;
  /** How long each call took, from its request to its last byte, by kind. */
  calls: { kind: CallKind; ms: number }[];
  /** Usage the answers reported, by caller (the request's API key) and kind; a benchmark clears it between phases. */
  tokens: Map<string, Record<CallKind, TokenTally>>;
  close(): Promise<void>;
}

/** What a chat call was, and the usage its answer reported. */
interface Answered {
  kind: CallKind;
  input: number;
  output: number;
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

/** The parts of a JSON schema a tool's parameters use here. */
interface JsonSchema {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
}

const isEmpty = (value: unknown) =>
  value === undefined || (Array.isArray(value) ? value.length === 0 : typeof value === "object" && value !== null && Object.keys(value).length === 0);

/** `value` in the shape `schema` asks for; a value of another shape gives way to a plausible one. */
function shaped(value: unknown, schema: JsonSchema): unknown {
  if (schema.enum) return schema.enum.includes(value) ? value : schema.enum[0];
  switch (schema.type) {
    case "array": {
      const items = Array.isArray(value) ? (value as unknown[]) : [];
      // Pairs asked for as strings are written "kind:value".
      return schema.items?.type === "string" ? items.map((item) => (typeof item === "object" && item ? Object.values(item).join(":") : String(item))) : items;
    }
    case "number":
      return typeof value === "number" ? value : ((schema.minimum ?? 0) + (schema.maximum ?? 1)) / 2;
    case "string":
      return typeof value === "string" ? value : "other";
    case "object":
      return typeof value === "object" && value !== null ? value : {};
    default:
      return value;
  }
}

/** What a classification request asks about: the message, and the context it gives (see `askedAbout`). */
interface Asked {
  message: string;
  lastIntent?: string;
  activeEntities: { type: string; value: string }[];
  /** Entities the request says were read from the message already ("type:value"). */
  found: string[];
}

/** An entity given as "type:value" (or already as an object). */
const entityOf = (entity: string | { type: string; value: string }) =>
  typeof entity === "string" ? { type: entity.slice(0, entity.indexOf(":")), value: entity.slice(entity.indexOf(":") + 1) } : entity;

/**
 * The arguments a model would give under the tool's `schema`: what the message says is read by the
 * project's keyword classifier, with the context the request gives (type, importance, intent,
 * entities — less those the request says it found already —, attributes, language; of the payload
 * a sum of money only with its currency, and whether entities came from the context — the
 * classifier reads any bare number as an amount, such as the "5" of "Turn 5:", and a model does
 * not — and nothing of the classifier's own marks). Every required field is given, in the schema's
 * shape; an optional one only when the message gives it something, as a model told to leave empty
 * fields out does.
 */
function toolArguments(schema: JsonSchema, asked: Asked): Record<string, unknown> {
  const { payload, entities, ...reading } = classifyByKeywords(asked.message, asked);
  const { classifier: _mark, amount, currency, ...details } = payload;
  const found = new Set(asked.found);
  const given: Record<string, unknown> = {
    ...reading,
    language: reading.language === "en" ? undefined : reading.language, // a model told to name only other languages
    entities: entities.filter((entity) => !found.has(`${entity.type}:${entity.value}`)),
    payload: currency ? { amount, currency, ...details } : details,
  };
  const required = new Set(schema.required ?? []);
  const args: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (required.has(name) || !isEmpty(given[name])) args[name] = shaped(given[name], property);
  }
  return args;
}

/**
 * What a request asks about: its last user message — the part after a "Message:" label when it
 * has one — and the JSON object on a "Context:" line before it, when there is one.
 */
function askedAbout(body: Record<string, unknown>): Asked {
  const users = ((body.messages ?? []) as { role: string; content: unknown }[]).filter((m) => m.role === "user");
  const content = users.at(-1)?.content;
  const text = typeof content === "string" ? content : "";
  const message = /(?:^|\n)Message: ([\s\S]*)$/.exec(text)?.[1] ?? text;
  const line = /^Context: (.*)$/m.exec(text)?.[1];
  const context = (line ? JSON.parse(line) : {}) as { lastIntent?: string | null; activeEntities?: Parameters<typeof entityOf>[0][]; found?: string[] };
  return { message, lastIntent: context.lastIntent ?? undefined, activeEntities: (context.activeEntities ?? []).map(entityOf), found: context.found ?? [] };
}

const usageOf = (prompt: number, completion: number) => ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });
/** Tokens of generated JSON or text by OpenAI's rule of thumb: about four characters a token. */
const tokensOf = (text: string) => Math.max(1, Math.ceil(text.length / 4));
/** Tokens of a chat request's prompt by the same rule: its messages and its tools' schemas, as JSON. */
const promptTokensOf = (body: Record<string, unknown>) => tokensOf(JSON.stringify(body.messages ?? [])) + (body.tools ? tokensOf(JSON.stringify(body.tools)) : 0);

async function chat(res: ServerResponse, body: Record<string, unknown>, pacing: Pacing): Promise<Answered> {
  const tools = body.tools as { function: { name: string; parameters?: JsonSchema } }[] | undefined;
  const prompt = promptTokensOf(body);
  const first = pacing.distinctReplies ? `w0-${[...askedAbout(body).message].reduce((sum, c) => (sum * 31 + c.charCodeAt(0)) % 1_000_003, 7)} ` : "w0 ";
  const pieces = Array.from({ length: pacing.tokens }, (_, i) => (i === 0 ? first : `w${i} `));
  if (body.stream === true && !tools?.length) {
    res.writeHead(200, { "content-type": "text/event-stream" });
    await sleep(pacing.ttftMs);
    for (const [i, piece] of pieces.entries()) {
      if (i > 0) await sleep(pacing.tokenGapMs);
      const delta = i === 0 ? { role: "assistant", content: piece } : { content: piece };
      res.write(`data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "paced", choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
    }
    res.write(`data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", created: 1, model: "paced", choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: usageOf(prompt, pieces.length) })}\n\n`);
    res.end("data: [DONE]\n\n");
    return { kind: "reply", input: prompt, output: pieces.length };
  }
  const args = tools?.length ? JSON.stringify(toolArguments(tools[0]!.function.parameters ?? {}, askedAbout(body))) : "";
  const text = Array.from({ length: pacing.textTokens ?? pacing.tokens }, (_, i) => `w${i} `);
  const completion = tools?.length ? tokensOf(args) : text.length;
  await sleep(pacing.ttftMs + (completion - 1) * pacing.tokenGapMs);
  const message = tools?.length
    ? { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: tools[0]!.function.name, arguments: args } }] }
    : { role: "assistant", content: text.join("") };
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ id: "c", object: "chat.completion", created: 1, model: "paced", choices: [{ index: 0, message, finish_reason: "stop" }], usage: usageOf(prompt, completion) }));
  return { kind: tools?.length ? "tool_call" : "text", input: prompt, output: completion };
}

const tally = (): Record<CallKind, TokenTally> => ({
  reply: { calls: 0, input: 0, output: 0 },
  tool_call: { calls: 0, input: 0, output: 0 },
  text: { calls: 0, input: 0, output: 0 },
  embeddings: { calls: 0, input: 0, output: 0 },
});

/** Adds one answered call to `caller`'s tally. */
function count(provider: PacedProvider, caller: string, { kind, input, output }: Answered): void {
  const tallies = provider.tokens.get(caller) ?? tally();
  provider.tokens.set(caller, tallies);
  tallies[kind] = { calls: tallies[kind].calls + 1, input: tallies[kind].input + input, output: tallies[kind].output + output };
}

export async function startPacedProvider(pacing: Pacing): Promise<PacedProvider> {
  const provider: PacedProvider = { baseUrl: "", pacing, calls: [], tokens: new Map(), close: async () => undefined };
  const server = createServer((req, res) => {
    const started = performance.now();
    const caller = (req.headers.authorization ?? "").replace(/^Bearer\s+/i, "") || "unknown";
    void bodyOf(req).then(async (body) => {
      if ((req.url ?? "").endsWith("/embeddings")) {
        await sleep(provider.pacing.embeddingsMs);
        const inputs = ([] as string[]).concat(body.input as string | string[]);
        res.writeHead(200, { "content-type": "application/json" });
        // The OpenAI client asks for base64 (little-endian Float32) unless told otherwise, as the API sends.
        const base64 = body.encoding_format === "base64";
        const embeddingOf = (text: string) => {
          const vector = vectorOf(text, provider.pacing.dimensions);
          return base64 ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector;
        };
        const input = inputs.reduce((sum, text) => sum + tokensOf(text), 0);
        res.end(JSON.stringify({ object: "list", model: "paced", data: inputs.map((text, index) => ({ object: "embedding", index, embedding: embeddingOf(text) })), usage: { prompt_tokens: input, total_tokens: input } }));
        provider.calls.push({ kind: "embeddings", ms: performance.now() - started });
        count(provider, caller, { kind: "embeddings", input, output: 0 });
        return;
      }
      const answered = await chat(res, body, provider.pacing);
      provider.calls.push({ kind: answered.kind, ms: performance.now() - started });
      count(provider, caller, answered);
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
