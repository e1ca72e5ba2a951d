import { resolveParent } from "../nodes/resolve-parent.js";
import type { Context, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import { log } from "../logger.js";
import type { TurnInput } from "../state/turn-input.js";
import type { TurnResult } from "../state/turn-result.js";
import type { RouteDeps, ServerEnv } from "./context.js";
import { errorAnswer } from "./http-error.js";
import { readJsonBody } from "./json-body.js";
import { turnInputOf } from "./request-schemas.js";
import { turnResponseOf } from "./response-schemas.js";

/**
 * POST /v1/turns and POST /v1/turns/stream. Every check (body, schema, ids, prompt length) runs
 * before the graph does, so a rejected request stores nothing and a stream only opens for a
 * turn that will run. A turn is not cancelled when its client goes away: finishing it keeps the
 * session's memory consistent.
 */
export function addTurnRoutes(app: Hono<ServerEnv>, deps: RouteDeps): void {
  const inputOf = async (c: Context<ServerEnv>): Promise<TurnInput> => {
    const input = turnInputOf(await readJsonBody(c, deps.bodyLimitBytes), c.get("tenantId"), deps.memory.limits.maxPromptChars);
    await resolveParent(deps.memory.persistence.store, input); // before a stream opens, so errors stay plain 4xx
    return input;
  };

  app.post("/v1/turns", async (c) => {
    const input = await inputOf(c);
    const result = await deps.memory.runTurn(input);
    logTurn(c.get("requestId"), result);
    return c.json(turnResponseOf(result), 200);
  });

  app.post("/v1/turns/stream", async (c) => {
    const input = await inputOf(c);
    const requestId = c.get("requestId");
    return streamSSE(c, async (stream) => {
      let writes: Promise<void> = Promise.resolve();
      const send = (event: string, data: unknown) => {
        writes = writes.then(() => stream.writeSSE({ event, data: JSON.stringify(data) }));
        return writes;
      };
      try {
        const result = await deps.memory.streamTurn(input, (text) => void send("token", { text }));
        logTurn(requestId, result);
        await send("result", turnResponseOf(result));
      } catch (error) {
        const { body } = errorAnswer(error, requestId);
        await send("error", body);
      }
    });
  });
}

/** Trim stats and fallbacks at debug; never the message text. */
function logTurn(requestId: string, result: TurnResult): void {
  log.debug("turn.done", {
    request_id: requestId,
    status: result.status,
    trim: result.trim,
    fallbacks: result.errors.map((error) => `${error.node}:${error.code}`),
    memory_tokens: result.memoryContext.tokens,
  });
}
