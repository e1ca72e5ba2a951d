import { z } from "zod";
import type { FactRecord, SummaryRecord, EventRecord, TranscriptRecord } from "../memory/records.js";
import type { TurnResult } from "../graph/state/turn-result.js";
import { snakeKeys } from "./case.js";
import { errorBodySchema } from "./http-error.js";

/** The response schemas of the HTTP API (snake_case), and the mapping from the graph's results. */

const record = z.record(z.string(), z.unknown());

export const turnResponseSchema = z
  .object({
    status: z.enum(["OK", "SKIP", "ERROR"]),
    candidate: z
      .object({
        id: z.string(),
        kind: z.literal("text"),
        status: z.literal("proposed"),
        text: z.string(),
        model: z.string(),
        created_at: z.string(),
      })
      .strict()
      .nullable(),
    memory_context: z.object({ recalled: record.nullable(), text: z.string(), tokens: z.number() }).strict(),
    intent: z.string().nullable().meta({
      description:
        "What the message is after (the classification's intent); null when nothing ran. When a model classifies, the result does not wait for it: null if it had not answered when the reply was made (the stored result, which a retry with the same message_id replays, has it).",
    }),
    need_memory: z.boolean().meta({ description: "Whether the message refers to what came before or is about the user (decided locally; when false, similar messages are not searched)." }),
    memory_reason: z.string().meta({ description: "One sentence: what memory was used and why, or why none was." }),
    trim: z
      .object({
        before_count: z.number(),
        after_count: z.number(),
        trimmed_by_chars: z.number(),
        trimmed_by_count: z.number(),
        trimmed_by_tokens: z.number(),
      })
      .strict()
      .nullable(),
    message_ids: z.object({ user: z.string().nullable(), assistant: z.string().nullable() }).strict(),
    errors: z.array(z.object({ node: z.string(), code: z.string(), message: z.string() }).strict()),
    usage: z
      .object({
        input_tokens: z.number(),
        output_tokens: z.number(),
        total_tokens: z.number(),
        calls: z.array(z.object({ node: z.string(), input_tokens: z.number(), output_tokens: z.number() }).strict()),
      })
      .strict()
      .meta({
        description:
          "Tokens this turn's model calls used, as the provider reported them, up to the reply (a classification that answered after it is in the stored result a retry replays; a summary made after the reply is logged, not counted here).",
      }),
    replayed: z.boolean(),
    degraded: z.array(z.enum(["session_store", "memory_store"])).meta({
      description:
        'The storage this turn ran without. `["session_store"]`: the session store did not answer; the turn ran on a session rebuilt from long-term memory, and its messages are stored all the same. A result that did not wait for a model\'s classification reports what was known when the reply was made: a checkpoint write skipped after it is logged (`checkpoint.write_skipped`) and counted, and the session\'s next turn catches up.',
    }),
  })
  .strict()
  .meta({ id: "TurnResponse" });

export type TurnResponse = z.infer<typeof turnResponseSchema>;

/**
 * One server-sent event of POST /v1/turns/stream: an `event:` line naming it and a `data:` line of
 * JSON. Any number of `token` events, then exactly one `result` or `error`.
 */
export const turnEventSchema = z
  .discriminatedUnion("event", [
    z.object({ event: z.literal("token"), data: z.object({ text: z.string() }).strict() }).strict().meta({ description: "A piece of the reply, as it is produced." }),
    z.object({ event: z.literal("result"), data: turnResponseSchema }).strict().meta({ description: "The turn's result, as POST /v1/turns answers it." }),
    z.object({ event: z.literal("error"), data: errorBodySchema }).strict().meta({ description: "The turn failed after the stream opened; nothing more follows." }),
  ])
  .meta({ id: "TurnEvent" });

export type TurnEvent = z.infer<typeof turnEventSchema>;

export const healthResponseSchema = z.object({ status: z.literal("ok") }).strict();
const dependencySchema = z
  .object({
    name: z.enum(["session_store", "memory_store"]),
    engine: z.string().meta({ description: "What serves it: sqlite, postgres, redis, memory." }),
    ok: z.boolean(),
    since: z.string().meta({ description: "When it last went down or came back (ISO 8601), or when this process began watching it." }),
    error: z.string().nullable().meta({ description: "Why it is down (null while it answers)." }),
    outages: z.number().int().nonnegative(),
    degraded_turns: z.number().int().nonnegative(),
    refused_turns: z.number().int().nonnegative(),
  })
  .strict()
  .meta({ id: "Dependency" });

export const readyResponseSchema = z.object({ status: z.literal("ready") }).strict();

/** GET /readyz when not ready: the usual error body, with every dependency's state. */
export const notReadyResponseSchema = z
  .object({ error: errorBodySchema.shape.error, dependencies: z.array(dependencySchema) })
  .strict()
  .meta({ id: "NotReady" });

const messageSchema = z.object({
  id: z.string(),
  role: z.enum(["user", "assistant"]),
  text: z.string(),
  parent_id: z.string().nullable(),
  created_at: z.string(),
  model: z.string().optional(),
  files: z.array(record).optional(),
});

export const messagesResponseSchema = z
  .object({ user_id: z.string(), session_id: z.string(), messages: z.array(messageSchema) })
  .strict()
  .meta({ id: "SessionMessages" });

const factSchema = z.object({ key: z.string(), value: z.string(), valid_from: z.string(), valid_to: z.string().nullable() }).passthrough();

export const memoryResponseSchema = z
  .object({
    user_id: z.string(),
    events: z.array(record),
    attributes: z.record(z.string(), z.string()),
    facts: z.array(factSchema),
    summaries: z.array(record),
  })
  .strict()
  .meta({ id: "UserMemory" });

const count = z.number().int().nonnegative();

/**
 * What a DELETE did: store items deleted (`items`, of which transcript `messages`, `summaries`,
 * `events`, `facts`), sessions and checkpoint threads; for a session, how many facts it had
 * superseded are current again (`restored.facts`).
 */
export const forgetResponseSchema = z
  .object({
    user_id: z.string(),
    session_id: z.string().optional(),
    deleted: z
      .object({ items: count, messages: count, summaries: count, events: count, facts: count, sessions: count, threads: count })
      .strict(),
    restored: z.object({ facts: count }).strict().optional(),
  })
  .strict()
  .meta({ id: "Forgotten" });

/** The response of a turn. */
export function turnResponseOf(result: TurnResult): TurnResponse {
  const candidate = result.candidate;
  return turnResponseSchema.parse({
    status: result.status,
    candidate: candidate
      ? { id: candidate.id, kind: candidate.kind, status: candidate.status, text: candidate.text, model: candidate.model, created_at: candidate.createdAt }
      : null,
    memory_context: {
      recalled: result.memoryContext.recalled ? snakeKeys(result.memoryContext.recalled) : null,
      text: result.memoryContext.text,
      tokens: result.memoryContext.tokens,
    },
    intent: result.intent,
    need_memory: result.needMemory,
    memory_reason: result.memoryReason,
    trim: result.trim ? snakeKeys(result.trim) : null,
    message_ids: { user: result.messageIds.user, assistant: result.messageIds.assistant },
    errors: result.errors.map((error) => ({ node: error.node, code: error.code, message: error.message })),
    usage: snakeKeys(result.usage),
    replayed: result.replayed,
    degraded: result.degraded,
  });
}

/** The response listing a session's current thread, root first. */
export function messagesResponseOf(userId: string, sessionId: string, thread: readonly TranscriptRecord[]) {
  return messagesResponseSchema.parse({
    user_id: userId,
    session_id: sessionId,
    // The session id is the response's own field; zod drops it from each message.
    messages: thread.map((message) => snakeKeys(message)),
  });
}

/** The response listing a user's long-term memory. */
export function memoryResponseOf(
  userId: string,
  layers: { events: EventRecord[]; facts: FactRecord[]; summaries: SummaryRecord[] },
) {
  const attributes = Object.fromEntries(layers.facts.filter((fact) => fact.validTo === null).map((fact) => [fact.key, fact.value]));
  return memoryResponseSchema.parse({
    user_id: userId,
    events: layers.events.map((event) => snakeKeys(event)),
    attributes,
    facts: layers.facts.map((fact) => snakeKeys(fact)),
    summaries: layers.summaries.map((summary) => snakeKeys(summary)),
  });
}
