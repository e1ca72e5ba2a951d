import { z } from "zod";
import { fileRefSchema } from "../reducers/message-meta.js";
import { MAX_ID_LENGTH, validateId } from "../memory/scope.js";
import { MemoryGraphError } from "../errors.js";

/** An id as `validateId` accepts it, its errors reported under `field` (as the caller names it). */
export const idSchema = (field: string) =>
  z.string().superRefine((value, ctx) => {
    try {
      validateId(field, value);
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message.replace(`${field}: `, "") });
    }
  });

/**
 * The incoming event of one turn: who (tenant, user, session), what (a message or one or more
 * prompt annotations) and, for a regeneration, the message the new turn continues from.
 */
export const turnInputSchema = z
  .object({
    tenantId: idSchema("tenantId"),
    userId: idSchema("userId"),
    sessionId: idSchema("sessionId"),
    message: z.string().optional(),
    prompts: z
      .array(z.object({ text: z.string(), files: z.array(fileRefSchema).max(20).optional() }).strict())
      .max(50)
      .optional(),
    messageId: idSchema("messageId").optional(),
    parentMessageId: idSchema("parentMessageId").optional(),
    files: z.array(fileRefSchema).max(20).optional(),
    metadata: z.record(z.string().max(MAX_ID_LENGTH), z.unknown()).optional(),
  })
  .strict();

export type TurnInput = z.infer<typeof turnInputSchema>;

/**
 * Validates a turn's input before anything is stored. Throws a user error naming the first bad
 * field (for example `prompts.0.text`), including a prompt longer than `maxPromptChars`.
 */
export function parseTurnInput(raw: unknown, maxPromptChars: number): TurnInput {
  const parsed = turnInputSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || "input";
    throw new MemoryGraphError("INVALID_INPUT", `${field}: ${issue?.message ?? "invalid"}`, { kind: "user", field });
  }
  const input = parsed.data;
  const length = promptText(input).length;
  if (length > maxPromptChars) {
    const field = input.message !== undefined ? "message" : "prompts";
    throw new MemoryGraphError("PROMPT_TOO_LONG", `${field}: the prompt has ${length} characters; the limit is ${maxPromptChars}`, {
      kind: "user",
      field,
    });
  }
  return input;
}

/** The prompt text of a turn: the message, or the prompt annotations joined by blank lines. */
export function promptText(input: Pick<TurnInput, "message" | "prompts">): string {
  const parts = [input.message ?? "", ...(input.prompts ?? []).map((p) => p.text)];
  return parts
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .join("\n\n");
}
