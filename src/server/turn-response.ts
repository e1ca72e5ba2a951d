import { z } from "zod";
import type { TurnResult } from "../graph/nodes/build-candidate.js";
import { snakeKeys } from "./case.js";
import { errorBodySchema } from "./http-error.js";

// What POST /v1/turns answers and POST /v1/turns/stream sends: the schema, and how a graph result becomes it.

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
    classification: z
      .object({
        policy: z.enum(["model", "rules", "auto"]).nullable(),
        by: z.enum(["model", "keywords"]),
        reason: z.string().nullable(),
        fallback_reason: z.string().nullable(),
      })
      .strict()
      .nullable()
      .meta({
        description:
          "How the message was classified: under which policy (CLASSIFY_POLICY), by the model or the local keyword classifier, and why (the `auto` policy's reason: e.g. `first_person`, `correction`, `names` when the model was asked; `acknowledgement`, `greeting`, `question`, `rule_matched`, `no_signal` when it was not; `policy_model`, `policy_rules`, `no_model` otherwise); `fallback_reason` when the model was asked and the keywords answered instead. Null as `intent` is (a classification the reply did not wait for). `policy` and `reason` are null in results stored before policies existed.",
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
          "Tokens this turn's model calls used, as the provider reported them, by call (`node`: call_model, classify_event, summarize, embeddings), up to the reply (a classification that answered after it is in the stored result a retry replays; a summary or title made after the reply is counted in the token metric, by node, not here).",
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

/** How a turn's message was classified, as the response says it. */
function classificationOf(event: TurnResult["event"]): TurnResponse["classification"] {
  if (!event) return null;
  return { policy: event.classifyPolicy ?? null, by: event.classifiedBy, reason: event.classifyReason ?? null, fallback_reason: event.fallbackReason };
}

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
    classification: classificationOf(result.event),
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

/**
 * POST /v1/turns and POST /v1/turns/stream. Every check (body, schema, ids, prompt length, parent,
 * a repeated `message_id`) runs before the graph does, so a rejected request stores nothing and a
 * stream only opens for a turn that will run (or replay). A turn is not cancelled when its client
 * goes away: finishing it keeps the session's memory consistent. A turn that ended in ERROR (the
 * model failed, no fallback answered) is a 502 with the usual body; a replay says so in a header.
 */

/** The turn request, checked once into the graph's input (the tenant is the key's). */