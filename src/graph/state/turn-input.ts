import { z } from "zod";
import { fileRefSchema } from "../../messages/message-meta.js";
import { ID_RULES, idSchema, MAX_ID_LENGTH, type MemoryScope } from "../../memory/scope.js";
import { MemoryGraphError } from "../../errors.js";
import { assertJsonBounds, JSON_BOUNDS } from "../../json-bounds.js";
import { MAX_TOP_K, MEMORY_SECTIONS } from "../../memory/memory-plan.js";

/**
 * The incoming event of one turn: who (tenant, user, session), what (a message or one or more
 * prompt annotations) and, for a regeneration, the message the new turn continues from. It is
 * also the graph's input schema: a run's input is these fields (what Studio's input form shows).
 */
export const turnInputSchema = z
  .object({
    tenantId: idSchema("tenantId", `The tenant: every store namespace starts with it. ${ID_RULES}.`),
    userId: idSchema("userId", `The user within the tenant. ${ID_RULES}.`),
    sessionId: idSchema("sessionId", `The session: tenant + user + session is the conversation's thread. ${ID_RULES}.`),
    message: z.string().optional().describe("The user's message (or send prompts)."),
    prompts: z
      .array(z.object({ text: z.string(), files: z.array(fileRefSchema).max(20).optional() }).strict())
      .max(50)
      .optional()
      .describe("Prompt annotations, joined by blank lines into the prompt (with message, if any)."),
    messageId: idSchema("messageId", "The id for the new user message, and the turn's idempotency key.").optional(),
    parentMessageId: idSchema("parentMessageId", "The message this turn continues from: a user message is answered again (regeneration).").optional(),
    files: z.array(fileRefSchema).max(20).optional().describe("File references attached to the message."),
    metadata: z.record(z.string().max(MAX_ID_LENGTH), z.unknown()).optional().describe("Caller data, kept in the turn's input as given; memory does not read it."),
    useMemory: z.boolean().optional().describe("false: no recall, no memory block and no earlier history in the prompt (the turn is still stored unless remember is false). Default true."),
    topK: z.number().int().min(0).max(MAX_TOP_K).optional().describe(`Similar past messages to recall, 0–${MAX_TOP_K} (default: the deployment's).`),
    memorySections: z.array(z.enum(MEMORY_SECTIONS)).max(MEMORY_SECTIONS.length).optional().describe(`The memory to include, of ${MEMORY_SECTIONS.join(", ")} (default: all).`),
    remember: z.boolean().optional().describe("false: an incognito turn, nothing of it goes to long-term memory (the session window keeps it for the session only). Default true."),
  })
  .strict();

export type TurnInput = z.infer<typeof turnInputSchema>;

/**
 * Validates a turn's input before anything is stored. Throws a user error naming the first bad
 * field (for example `prompts.0.text`), including a prompt longer than `maxPromptChars`, JSON over
 * the structure bound (INPUT_TOO_COMPLEX) and text with NUL or a lone surrogate (INVALID_TEXT).
 */
export function parseTurnInput(raw: unknown, maxPromptChars: number): TurnInput {
  return ValidTurn.parse(raw, maxPromptChars).input;
}

/**
 * A turn's input that passed every rule, with its prompt text, computed once: the one value a turn
 * carries from the caller into the graph. Made three ways, each checking each rule once:
 * - `parse`: an input from anywhere (a library caller): structure bound and text rule, the
 *   schema, the prompt length;
 * - `accept`: an input its caller validated with this schema's rules (the HTTP route's request
 *   schema is derived from it): the prompt length only, which depends on the deployment's limit;
 * - `ofGraphInput`: a graph run's input fields, which LangGraph parsed with `turnInputSchema` (the
 *   graph's input schema): the structure bound, the text rule and the prompt length.
 */
export class ValidTurn {
  /** Whose turn it is: the tenant, user and session of `input`. */
  readonly scope: MemoryScope;

  private constructor(
    readonly input: TurnInput,
    /** The prompt text: the message, or the prompt annotations joined by blank lines. */
    readonly text: string,
  ) {
    this.scope = { tenantId: input.tenantId, userId: input.userId, sessionId: input.sessionId };
  }

  static parse(raw: unknown, maxPromptChars: number): ValidTurn {
    // The structure bound and the text rule first: nothing else walks a hostile value.
    const parsed = turnInputSchema.safeParse(assertJsonBounds(raw, "", JSON_BOUNDS));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join(".") || "input";
      throw new MemoryGraphError("INVALID_INPUT", `${field}: ${issue?.message ?? "invalid"}`, { kind: "user", field });
    }
    return ValidTurn.accept(parsed.data, maxPromptChars);
  }

  static accept(input: TurnInput, maxPromptChars: number): ValidTurn {
    return new ValidTurn(input, checkPromptLength(input, maxPromptChars));
  }

  static ofGraphInput(fields: Record<string, unknown>, maxPromptChars: number): ValidTurn {
    return ValidTurn.accept(assertJsonBounds(fields, "", JSON_BOUNDS) as TurnInput, maxPromptChars);
  }
}

/** The prompt text of `input`, refused (PROMPT_TOO_LONG) over `maxPromptChars`. */
function checkPromptLength(input: TurnInput, maxPromptChars: number): string {
  const text = promptText(input);
  const length = text.length;
  if (length > maxPromptChars) {
    const field = input.message !== undefined ? "message" : "prompts";
    throw new MemoryGraphError("PROMPT_TOO_LONG", `${field}: the prompt has ${length} characters; the limit is ${maxPromptChars}`, {
      kind: "user",
      field,
    });
  }
  return text;
}

/** The prompt text of a turn: the message, or the prompt annotations joined by blank lines. */
export function promptText(input: Pick<TurnInput, "message" | "prompts">): string {
  const parts = [input.message ?? "", ...(input.prompts ?? []).map((p) => p.text)];
  return parts
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .join("\n\n");
}
