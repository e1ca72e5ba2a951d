import { z } from "zod";
import { MemoryGraphError } from "../errors.js";
import { MAX_ID_LENGTH } from "../memory/scope.js";
import { idSchema, parseTurnInput, type TurnInput } from "../state/turn-input.js";
import { camelKeys } from "./case.js";

/**
 * The request schemas of the HTTP API (snake_case, strict: an unknown field is a 400). The tenant
 * never comes from a request: it is the API key's.
 */

const MAX_METADATA_DEPTH = 8;

/** A file reference in snake_case; its fields are checked by the turn input schema after conversion. */
const fileJson = z.record(z.string(), z.unknown());

export const turnRequestSchema = z
  .object({
    user_id: idSchema("user_id"),
    session_id: idSchema("session_id"),
    message: z.string().optional().describe("The user's message (or send prompts). No prompt text at all is a turn with status SKIP."),
    prompts: z
      .array(z.object({ text: z.string(), files: z.array(fileJson).max(20).optional() }).strict())
      .max(50)
      .optional()
      .describe("Prompt annotations, joined by blank lines into the prompt (after message, if any)."),
    message_id: idSchema("message_id", "The id of the new user message, and the turn's idempotency key within the session.").optional(),
    parent_message_id: idSchema("parent_message_id", "The message to continue from; a user message is answered again (regeneration).").optional(),
    files: z.array(fileJson).max(20).optional().describe("File references (type, transfer_method, upload_file_id | tool_file_id | url, belongs_to)."),
    metadata: z
      .record(z.string().max(MAX_ID_LENGTH), z.unknown())
      .refine((value) => depthOf(value) <= MAX_METADATA_DEPTH, { message: `must nest at most ${MAX_METADATA_DEPTH} levels` })
      .optional()
      .describe(`Caller data (nesting at most ${MAX_METADATA_DEPTH} levels), kept with the turn's input.`),
  })
  .strict()
  .meta({ id: "TurnRequest", description: "One user message of a session. Unknown fields are a 400." });

export type TurnRequest = z.infer<typeof turnRequestSchema>;

/** `?user_id=` of the session routes (nothing else is accepted). */
export const userQuerySchema = z.object({ user_id: idSchema("user_id", "The user the session belongs to.") }).strict();

/** The query of the user routes: none is accepted. */
export const emptyQuerySchema = z.object({}).strict();

/** The `:user_id` of a user route (checked by `pathId`, strictly decoded, with the same rules). */
export const userPathSchema = z.object({ user_id: idSchema("user_id", "The user.") });

/** The `:session_id` of a session route. */
export const sessionPathSchema = z.object({ session_id: idSchema("session_id", "The session.") });

/** Parses `schema` or throws a user error naming the first bad field (snake_case, dotted). */
export function parseRequest<T>(schema: z.ZodType<T>, value: unknown, fallbackField = "body"): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.code === "unrecognized_keys" ? [...issue.path, issue.keys[0] ?? ""] : (issue?.path ?? []);
  const field = path.map(String).join(".") || fallbackField;
  const code = issue?.code === "unrecognized_keys" ? "UNKNOWN_FIELD" : "INVALID_INPUT";
  const detail = issue?.code === "unrecognized_keys" ? `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}` : (issue?.message ?? "invalid");
  throw new MemoryGraphError(code, `${field}: ${detail}`, { kind: "user", field });
}

/**
 * The graph's input for a turn request of `tenantId`, validated by the graph's own rules too
 * (prompt length, file references), so every user error surfaces before anything runs.
 */
export function turnInputOf(body: unknown, tenantId: string, maxPromptChars: number): TurnInput {
  const request = parseRequest(turnRequestSchema, body);
  const fileRefs = (files: Record<string, unknown>[] | undefined) => files?.map(camelKeys);
  const input = {
    tenantId,
    userId: request.user_id,
    sessionId: request.session_id,
    message: request.message,
    prompts: request.prompts?.map((prompt) => ({ text: prompt.text, files: fileRefs(prompt.files) })),
    messageId: request.message_id,
    parentMessageId: request.parent_message_id,
    files: fileRefs(request.files),
    metadata: request.metadata,
  };
  const defined = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined));
  if (defined.prompts) defined.prompts = (defined.prompts as { text: string; files?: unknown }[]).map(dropUndefined);
  return parseTurnInput(defined, maxPromptChars);
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined)) as T;
}

/** How deeply a JSON value nests (iterative, so a hostile value cannot overflow the stack). */
function depthOf(root: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (value === null || typeof value !== "object") continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_METADATA_DEPTH) return deepest;
    for (const inner of Object.values(value)) stack.push([inner, depth + 1]);
  }
  return deepest;
}
