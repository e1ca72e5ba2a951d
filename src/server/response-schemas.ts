import { z } from "zod";
import type { FactRecord, SummaryRecord, EventRecord, TranscriptRecord } from "../memory/records.js";
import { snakeKeys } from "./case.js";
import { errorBodySchema } from "./http-error.js";

/** The response schemas of the memory and health routes (snake_case), and the mapping from memory's records. The turn's are in turn-routes.ts. */

const record = z.record(z.string(), z.unknown());

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
