import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { log } from "../logger.js";
import type { ValidTurn } from "../graph/state/turn-input.js";
import type { TurnResult } from "../graph/state/turn-result.js";
import type { RouteDeps, ServerEnv } from "./context.js";
import { errorAnswer } from "./http-error.js";
import { readJsonBody } from "./json-body.js";
import { turnInputOf } from "./request-schemas.js";
import { turnResponseOf, type TurnEvent } from "./response-schemas.js";
import { REPLAYED_HEADER, type RouteHandlers } from "./routes.js";

/**
 * POST /v1/turns and POST /v1/turns/stream. Every check (body, schema, ids, prompt length, parent,
 * a repeated `message_id`) runs before the graph does, so a rejected request stores nothing and a
 * stream only opens for a turn that will run (or replay). A turn is not cancelled when its client
 * goes away: finishing it keeps the session's memory consistent. A turn that ended in ERROR (the
 * model failed, no fallback answered) is a 502 with the usual body; a replay says so in a header.
 */
export function turnHandlers(deps: RouteDeps): Pick<RouteHandlers, "createTurn" | "streamTurn"> {
  const inputOf = async (c: Context<ServerEnv>): Promise<ValidTurn> =>
    turnInputOf(await readJsonBody(c, deps.bodyLimitBytes), c.get("tenantId"), deps.memory.limits.maxPromptChars);

  const createTurn = async (c: Context<ServerEnv>) => {
    const result = await deps.memory.runTurn(await inputOf(c));
    logTurn(c.get("requestId"), result);
    if (result.replayed) c.header(REPLAYED_HEADER, "true");
    return c.json(turnResponseOf(result), result.status === "ERROR" ? 502 : 200);
  };

  const streamTurn = async (c: Context<ServerEnv>) => {
    const input = await inputOf(c);
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
  };

  return { createTurn, streamTurn };
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
