import { z, type ZodType } from "zod";
import { jsonDepth } from "../json-bounds.js";
import { ID_RULES } from "../memory/scope.js";
import { turnInputSchema, ValidTurn, type TurnInput } from "../graph/state/turn-input.js";
import type { TurnResult } from "../graph/state/turn-result.js";
import { snakeKeys, toCamel } from "./case.js";
import { errorBodySchema } from "./http-error.js";
import { parseRequest } from "./route.js";
import { snakeCasing } from "./snake-schema.js";

/**
 * The turn on the wire (POST /v1/turns and /v1/turns/stream): the request (snake_case, strict:
 * an unknown field is a 400), checked once into the graph's input (`turnInputOf`); the response
 * and the stream's events, made from the graph's result (`turnResponseOf`). The tenant never
 * comes from a request: it is the API key's.
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
