import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { z, type ZodType } from "zod";
import { jsonDepth } from "../json-bounds.js";
import { log } from "../logger.js";
import { ID_RULES } from "../memory/scope.js";
import type { TurnResult } from "../graph/nodes/build-candidate.js";
import { turnInputSchema, ValidTurn, type TurnInput } from "../graph/state/turn-input.js";
import { toCamel } from "./case.js";
import type { RouteDeps, ServerEnv } from "./context.js";
import { errorAnswer } from "./http-error.js";
import { API_PREFIX, BODY_ERRORS, REPLAYED_HEADER, replayedHeader, TURN_CONFLICT } from "./responses.js";
import { defineRoute, parseRequest, type BodyPart } from "./route.js";
import { snakeCasing } from "./snake-schema.js";
import { turnEventSchema, turnResponseOf, turnResponseSchema, type TurnEvent } from "./turn-response.js";

/**
 * The turn on the wire (POST /v1/turns and /v1/turns/stream): the request (snake_case, strict:
 * an unknown field is a 400), checked once into the graph's input (`turnInputOf`); the response
 * and the stream's events, made from the graph's result (`turnResponseOf`). The tenant never
 * comes from a request: it is the API key's. A turn holds a place of the admission control
 * (`TurnAdmission`) from before it runs until its result.
 */

const MAX_METADATA_DEPTH = 8;

/** Fields of the core turn input in snake_case, with the core's rules (see `snakeCasing`). */
const { request: snakeCased } = snakeCasing();

/** The core field `key`, snake-cased, described for readers of the HTTP API. */
function httpField(key: Exclude<keyof typeof turnInputSchema.shape, "tenantId">, description: string): ZodType {
  const field = snakeCased(turnInputSchema.shape[key]);
  return field.meta({ ...z.globalRegistry.get(field), description });
}

/** An id field of the core, keeping its rules (and their JSON Schema bounds), described for the HTTP API. */
function httpId(key: "userId" | "sessionId" | "messageId" | "parentMessageId", description = `An id: ${ID_RULES}.`): ZodType {
  const core = turnInputSchema.shape[key];
  const id = (core instanceof z.ZodOptional ? core.unwrap() : core) as ZodType;
  const described = id.meta({ ...z.globalRegistry.get(id), description });
  return core instanceof z.ZodOptional ? described.optional() : described;
}

/** The core's metadata field, nesting at most MAX_METADATA_DEPTH levels (the service's own bound). */
const metadataField = (turnInputSchema.shape.metadata.unwrap() as ZodType)
  .refine((value) => jsonDepth(value, MAX_METADATA_DEPTH) <= MAX_METADATA_DEPTH, { message: `must nest at most ${MAX_METADATA_DEPTH} levels` })
  .optional()
  .describe(`Caller data (nesting at most ${MAX_METADATA_DEPTH} levels), kept with the turn's input.`);

/**
 * The turn request: the core turn input (`turnInputSchema`) in snake_case, without the tenant
 * (the API key's), its rules and bounds taken from the core schema.
 */
export const turnRequestSchema = z
  .object({
    user_id: httpId("userId"),
    session_id: httpId("sessionId"),
    message: httpField("message", "The user's message (or send prompts). No prompt text at all is a turn with status SKIP."),
    prompts: httpField("prompts", "Prompt annotations, joined by blank lines into the prompt (after message, if any)."),
    message_id: httpId("messageId", "The id of the new user message, and the turn's idempotency key within the session."),
    parent_message_id: httpId("parentMessageId", "The message to continue from; a user message is answered again (regeneration)."),
    files: httpField("files", "File references (type, transfer_method, upload_file_id | tool_file_id | url, belongs_to)."),
    metadata: metadataField,
    use_memory: httpField("useMemory", "false: no recall, no memory block and no earlier history in the prompt; the turn is still stored unless remember is false. Default true."),
    top_k: httpField("topK", "Similar past messages to recall and show, 0–50 (default: the deployment's RECALL limit)."),
    memory_sections: httpField("memorySections", "Which memory to include: history, summaries, facts, events, similar (default: all)."),
    remember: httpField("remember", "false: an incognito turn; nothing of it goes to long-term memory, the session window keeps it for the session only. Default true."),
  })
  .strict()
  .meta({ id: "TurnRequest", description: "One user message of a session. Unknown fields are a 400." });

export type TurnRequest = z.infer<typeof turnRequestSchema>;

/**
 * The turn of a request of `tenantId`. The request schema holds the core's rules, so this is the
 * turn's one validation (the prompt's length, the deployment's limit, checked with it), and every
 * user error surfaces before anything runs.
 */
export function turnInputOf(body: unknown, tenantId: string, maxPromptChars: number): ValidTurn {
  const request = parseRequest(turnRequestSchema, body) as Record<string, unknown>;
  const input = Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined).map(([key, value]) => [toCamel(key), value]));
  return ValidTurn.accept({ tenantId, ...input } as TurnInput, maxPromptChars);
}

const turnBody: BodyPart<ValidTurn> = {
  schema: turnRequestSchema,
  parse: (value, c, deps) => turnInputOf(value, c.get("tenantId"), deps.memory.limits.maxPromptChars),
};

export const createTurn = defineRoute({
  method: "post",
  path: `${API_PREFIX}/turns`,
  tag: "turns",
  summary: "Answer one user message",
  description:
    "Stores the message, recalls memory, answers, and updates memory. A message_id makes retries safe: the same id with the same text and parent replays the stored answer.",
  body: turnBody,
  responses: {
    200: { description: "The turn's result: status OK, or SKIP when there was no prompt text.", json: turnResponseSchema, headers: replayedHeader },
    409: TURN_CONFLICT,
    ...BODY_ERRORS,
    502: {
      description: "The turn ended in ERROR: the model failed and no fallback answered. Same body as 200 (status ERROR, the stored message ids, the errors); a retry with its message_id asks again.",
      json: turnResponseSchema,
    },
  },
  handle: async (c, { body }, deps) => {
    const release = await deps.admission.enter();
    const result = await deps.memory.runTurn(body).finally(release);
    logTurn(c.get("requestId"), result);
    if (result.replayed) c.header(REPLAYED_HEADER, "true");
    return c.json(turnResponseOf(result), result.status === "ERROR" ? 502 : 200);
  },
});

export const streamTurn = defineRoute({
  method: "post",
  path: `${API_PREFIX}/turns/stream`,
  tag: "turns",
  summary: "Answer one user message, streaming the reply",
  description: "The same turn as POST /v1/turns. Every check runs before the stream opens, so a refused request is a plain error answer.",
  body: turnBody,
  responses: {
    200: {
      description: "Server-sent events: `token` events with the reply as it is produced, then one `result` (the turn's result, status OK, SKIP or ERROR) or one `error`.",
      events: turnEventSchema,
      headers: replayedHeader,
    },
    409: TURN_CONFLICT,
    ...BODY_ERRORS,
  },
  handle: (c, { body }, deps) => streamAnswer(c, body, deps),
});

async function streamAnswer(c: Context<ServerEnv>, input: ValidTurn, deps: RouteDeps): Promise<Response> {
  const requestId = c.get("requestId");
  // Tokens that come before the stream is open wait here; an error before the turn starts is a plain 4xx.
  const early: string[] = [];
  let forward: ((text: string) => void) | null = null;
  let started!: (start: { replayed: boolean }) => void;
  const start = new Promise<{ replayed: boolean }>((resolve) => (started = resolve));
  // Refused at capacity before anything runs: a plain 503, no stream.
  const release = await deps.admission.enter();
  const result = deps.memory.streamTurn(input, (text) => (forward ? forward(text) : early.push(text)), { onStart: started });
  void result.then(release, release);
  const { replayed } = await Promise.race([start, result]);
  if (replayed) c.header(REPLAYED_HEADER, "true");
  return streamSSE(c, async (stream) => {
    let writes: Promise<void> = Promise.resolve();
    const send = ({ event, data }: TurnEvent) => {
      writes = writes.then(() => stream.writeSSE({ event, data: JSON.stringify(data) }));
      return writes;
    };
    let ended = false;
    const end = async (event: TurnEvent) => {
      if (ended) return;
      ended = true;
      unregister();
      await send(event);
    };
    // A shutdown whose grace runs out: the last event says so, and the stream closes.
    const unregister = deps.streams.add(async () => {
      await end({ event: "error", data: { error: { code: "DRAINING", message: CUT_BY_SHUTDOWN } } });
      await stream.close();
    });
    forward = (text) => void (ended ? undefined : send({ event: "token", data: { text } }));
    for (const text of early.splice(0)) forward(text);
    try {
      const done = await result;
      logTurn(requestId, done);
      await end({ event: "result", data: turnResponseOf(done) });
    } catch (error) {
      const { body } = errorAnswer(error, requestId);
      await end({ event: "error", data: body });
    }
  });
}

const CUT_BY_SHUTDOWN =
  "the service shut down before this answer was complete; retry with the same message_id (the message is kept: a retry replays the answer or answers it again)";

/** Token usage at info, trim stats and fallbacks at debug; never the message text. */
function logTurn(requestId: string, result: TurnResult): void {
  // What memory costs: the tokens of this turn's model calls, on every turn.
  log.info("turn.usage", {
    request_id: requestId,
    input_tokens: result.usage.inputTokens,
    output_tokens: result.usage.outputTokens,
    calls: result.usage.calls.length,
    classified_by: result.event?.classifiedBy ?? null,
    classify_reason: result.event?.classifyReason ?? null,
  });
  log.debug("turn.done", {
    request_id: requestId,
    status: result.status,
    trim: result.trim,
    fallbacks: result.errors.map((error) => `${error.node}:${error.code}`),
    memory_tokens: result.memoryContext.tokens,
  });
}
