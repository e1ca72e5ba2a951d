import { z, type ZodType } from "zod";
import { MemoryGraphError } from "../errors.js";
import { jsonDepth } from "../json-bounds.js";
import { ID_RULES, idSchema } from "../memory/scope.js";
import { turnInputSchema, ValidTurn, type TurnInput } from "../graph/state/turn-input.js";
import { toCamel } from "./case.js";
import { snakeCasing } from "./snake-schema.js";

/**
 * The request schemas of the HTTP API (snake_case, strict: an unknown field is a 400). The tenant
 * never comes from a request: it is the API key's.
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

/** `?user_id=` of the session routes (nothing else is accepted). */
export const userQuerySchema = z.object({ user_id: idSchema("user_id", "The user the session belongs to.") }).strict();

/** The query of the user routes: none is accepted. */
export const emptyQuerySchema = z.object({}).strict();

/** The `:user_id` of a user route (strictly decoded, see `pathParams`). */
export const userPathSchema = z.object({ user_id: idSchema("user_id", "The user.") });

/** The `:session_id` of a session route. */
export const sessionPathSchema = z.object({ session_id: idSchema("session_id", "The session.") });

/**
 * Parses `schema` or throws a user error naming the first bad field (snake_case, dotted): an
 * unknown one is UNKNOWN_FIELD, a bad one `invalid` (INVALID_INPUT, or INVALID_ID for a path id).
 */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown, fallbackField = "body", invalid: "INVALID_INPUT" | "INVALID_ID" = "INVALID_INPUT"): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.code === "unrecognized_keys" ? [...issue.path, issue.keys[0] ?? ""] : (issue?.path ?? []);
  const field = path.map(String).join(".") || fallbackField;
  const code = issue?.code === "unrecognized_keys" ? "UNKNOWN_FIELD" : invalid;
  const detail = issue?.code === "unrecognized_keys" ? `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}` : (issue?.message ?? "invalid");
  throw new MemoryGraphError(code, `${field}: ${detail}`, { kind: "user", field });
}

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
