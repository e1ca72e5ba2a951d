import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod";
import { textOf } from "../../messages/message-meta.js";
import type { MemorySection } from "../../memory/memory-plan.js";
import { ID_RULES, validateId, validateUser, type Checked, type UserScope } from "../../memory/scope.js";
import { ValidTurn } from "../../graph/state/turn-input.js";

/**
 * Who an agent's turn is for, and what memory it may use: the agent's runtime context
 * (`agent.invoke(input, { context })`), checked by the rules a turn of the graph is checked by.
 */

/** An id field of the context: typed a string, checked by `validateId` where it is read (our INVALID_ID, naming the field). */
const id = (field: string, description: string) =>
  z
    .custom<string>((value) => {
      validateId(field, value);
      return true;
    })
    .describe(`${description} ${ID_RULES}.`);

/** A field checked with the rest of the turn (`ValidTurn.parse`), so that its error is ours too. */
const later = <T>(description: string) => z.custom<T>().optional().describe(description);

/**
 * The middleware's context schema: the tenant, user and session (required), and the turn's
 * switches as the graph's input has them (`TurnInput`: `messageId`, `useMemory`, `topK`,
 * `memorySections`, `remember`; HTTP's `message_id`, `use_memory`, `top_k`, `memory_sections`,
 * `remember`). An id that breaks the id rules fails with our INVALID_ID wherever the context is
 * read; the switches are checked when the turn starts (INVALID_INPUT naming the field).
 */
export const agentContextSchema = z.object({
  tenantId: id("tenantId", "The tenant: every stored item of the turn lives under it."),
  userId: id("userId", "The user within the tenant."),
  sessionId: id("sessionId", "The session: tenant + user + session is the conversation's thread in memory."),
  messageId: later<string>("The id to store the user's message under, and the turn's idempotency key: a retry with it writes nothing new."),
  useMemory: later<boolean>("false: no recall and no memory block (the turn is still stored unless remember is false). Default true."),
  topK: later<number>("Similar past messages to recall (default: the deployment's)."),
  memorySections: later<MemorySection[]>("The memory to include: history, summaries, facts, events, similar (default: all)."),
  remember: later<boolean>("false: an incognito turn; nothing of it goes to long-term memory. Default true."),
});

/** The agent's runtime context, as the middleware reads it. */
export type AgentContext = z.output<typeof agentContextSchema>;

/** The tenant and user of a context, checked (a memory tool's whole scope: never the model's arguments). */
export function userOfContext(context: unknown): Checked<UserScope> {
  const { tenantId, userId } = (context ?? {}) as Partial<Record<"tenantId" | "userId", unknown>>;
  return validateUser({ tenantId: tenantId as string, userId: userId as string });
}

/**
 * The turn an agent run takes, as the graph would take it: the context's ids and switches with the
 * text of the new user message, validated by `ValidTurn.parse` (INVALID_ID, INVALID_INPUT,
 * PROMPT_TOO_LONG, …; nothing is stored before it passes). Its `messageId` is the context's when
 * given (an idempotency key), else the message's own id when that is a valid id, else `newId()`.
 */
export function agentTurnOf(context: unknown, human: BaseMessage | null, options: { maxPromptChars: number; newId: () => string }): ValidTurn {
  const given = (context ?? {}) as Record<string, unknown>;
  const switches = Object.fromEntries(["useMemory", "topK", "memorySections", "remember"].flatMap((key) => (given[key] === undefined ? [] : [[key, given[key]]])));
  const messageId = given.messageId ?? (human ? ownIdOf(human) ?? options.newId() : undefined);
  return ValidTurn.parse(
    {
      tenantId: given.tenantId,
      userId: given.userId,
      sessionId: given.sessionId,
      ...(human ? { message: textOf(human) } : {}),
      ...(messageId === undefined ? {} : { messageId }),
      ...switches,
    },
    options.maxPromptChars,
  );
}

/** The message's id, when it is one memory can store it under. */
function ownIdOf(message: BaseMessage): string | undefined {
  try {
    return message.id === undefined ? undefined : validateId("messageId", message.id);
  } catch {
    return undefined;
  }
}
