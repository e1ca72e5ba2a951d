import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { log } from "../logger.js";
import type { ValidTurn } from "../graph/state/turn-input.js";
import type { TurnResult } from "../graph/state/turn-result.js";
import type { RouteDeps, ServerEnv } from "./context.js";
import { errorAnswer } from "./http-error.js";
import { API_PREFIX, BODY_ERRORS, REPLAYED_HEADER, replayedHeader, TURN_CONFLICT } from "./responses.js";
import { defineRoute, type BodyPart } from "./route.js";
import { turnEventSchema, turnInputOf, turnRequestSchema, turnResponseOf, turnResponseSchema, type TurnEvent } from "./turn-schemas.js";

/**
 * POST /v1/turns and POST /v1/turns/stream. Every check (body, schema, ids, prompt length, parent,
 * a repeated `message_id`) runs before the graph does, so a rejected request stores nothing and a
 * stream only opens for a turn that will run (or replay). A turn is not cancelled when its client
 * goes away: finishing it keeps the session's memory consistent. A turn that ended in ERROR (the
 * model failed, no fallback answered) is a 502 with the usual body; a replay says so in a header.
 */

/** The turn request, checked once into the graph's input (the tenant is the key's). */
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
    const result = await deps.memory.runTurn(body);
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
  const result = deps.memory.streamTurn(input, (text) => (forward ? forward(text) : early.push(text)), { onStart: started });
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
  log.info("turn.usage", { request_id: requestId, input_tokens: result.usage.inputTokens, output_tokens: result.usage.outputTokens, calls: result.usage.calls.length });
  log.debug("turn.done", {
    request_id: requestId,
    status: result.status,
    trim: result.trim,
    fallbacks: result.errors.map((error) => `${error.node}:${error.code}`),
    memory_tokens: result.memoryContext.tokens,
  });
}
