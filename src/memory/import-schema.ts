import { z } from "zod";
import { MemoryGraphError } from "../errors.js";
import { assertJsonBounds } from "../json-bounds.js";
import { fileRefSchema } from "../messages/message-meta.js";
import { normalizeFactKey } from "./facts.js";
import { entityNodeSchema } from "./entities/graph-schema.js";
import { time } from "./import-times.js";
import { ID_RULES, idSchema, validateId } from "./scope.js";
import { turnResultSchema } from "./turn-records.js";

/**
 * The shape of what `importSessions` takes and `exportUser` gives: past sessions with their
 * messages, and (in an export) the user's events, facts and summaries. Validated with zod; a bad
 * element fails the whole import naming its index and field ("sessions.2.messages.0.role").
 */

/** Most messages one import may carry (IMPORT_TOO_LARGE above it). */
export const MAX_IMPORT_MESSAGES = 1_000;
/** Most characters of message text one import may carry, all messages together. */
export const MAX_IMPORT_CHARS = 4_000_000;
/** Longest text of one imported message: a past reply may be longer than a prompt may. */
export const MAX_IMPORTED_TEXT_CHARS = 100_000;

/** One past message: `createdAt` and `parentId` default from its place in the session, `recall: false` keeps it out of recall. */
export const importMessageSchema = z
  .object({
    id: idSchema("id", "The message id: importing the same id again stores it once."),
    role: z.enum(["user", "assistant"]),
    text: z.string().max(MAX_IMPORTED_TEXT_CHARS),
    speaker: z.string().min(1).max(200).optional().meta({ description: "Who said it, by name; recall indexes it with the text." }),
    createdAt: time("When it was said (default: when the session began, plus one second per position).").optional(),
    parentId: idSchema("parentId", "The message it follows (default: the one before it in the list).").nullable().optional(),
    model: z.string().min(1).max(200).optional(),
    files: z.array(fileRefSchema).max(20).optional(),
    recall: z.literal(false).optional().meta({ description: "`false`: kept in the transcript but never recalled (as offline replies are)." }),
  })
  .strict();

/** One past session: its id, when it began, and its messages in the order they were written. */
export const importSessionSchema = z
  .object({
    sessionId: idSchema("sessionId", "The session."),
    startedAt: time("When the session began."),
    messages: z.array(importMessageSchema).min(1),
  })
  .strict();

/** Past sessions, the plain form of an import. */
export const importSessionsSchema = z.array(importSessionSchema);

const entitySchema = z.object({ type: z.string(), value: z.string() }).strict();

/** An `EventRecord`, as an export carries it. */
export const eventRecordSchema = z
  .object({
    id: idSchema("id"),
    type: z.string().min(1),
    importance: z.number().min(0).max(1),
    intent: z.string(),
    entities: z.array(entitySchema),
    language: z.string(),
    payload: z.record(z.string(), z.unknown()),
    text: z.string(),
    messageId: idSchema("messageId"),
    sessionId: idSchema("sessionId"),
    createdAt: time("When the message was classified."),
    classifiedBy: z.enum(["model", "keywords"]),
  })
  .strict();

/** The first issue `validate` finds in `value`, added to `ctx` under the field it names (relative to the value). */
function addFirstIssue(ctx: z.core.$RefinementCtx, validate: () => void, path: PropertyKey[] = []): void {
  try {
    validate();
  } catch (error) {
    if (!(error instanceof MemoryGraphError)) throw error;
    ctx.addIssue({ code: "custom", message: error.message.replace(/^[^:]*: /, ""), path });
  }
}

/**
 * A fact's id as live writes make them: its key, `@`, and an id under the id rules (`city@m1` for
 * a fact learned from message m1, `city@edit-<uuid>` for an edit); an id without its key is held
 * to the id rules whole.
 */
const factIdSchema = z
  .string()
  .max(400)
  .meta({ description: `The fact's key, \`@\`, and an id (${ID_RULES}): \`city@m1\`, \`city@edit-<uuid>\`.`, minLength: 1 });

/** A fact key as live writes make it (`normalizeFactKey`): lower case, words joined by `_`, dots for groups. */
const factKeySchema = z
  .string()
  .min(1)
  .max(200)
  .refine((key) => normalizeFactKey(key) === key, { message: "must be a fact key as memory writes them: lower case letters and digits, words joined by '_', groups by '.' (e.g. location.city)" });

/** A `FactRecord` with its validity, as an export carries it: its id under the id rules (see `factIdSchema`), never superseded before it began. */
export const factRecordSchema = z
  .object({
    id: factIdSchema,
    key: factKeySchema,
    value: z.string().min(1),
    text: z.string(),
    validFrom: time("Since when it holds."),
    validTo: time("When a newer value superseded it; null while current; never before valid_from.").nullable(),
    expiresAt: time("When it stops being true by itself; absent: until it changes.").optional(),
    sourceMessageIds: z.array(idSchema("sourceMessageIds")),
    sessionId: idSchema("sessionId"),
    pinned: z.literal(true).optional(),
    source: z.literal("edit").optional(),
  })
  .strict()
  .superRefine((fact, ctx) => {
    const prefix = `${fact.key}@`;
    const own = fact.id.startsWith(prefix) ? fact.id.slice(prefix.length) : fact.id;
    addFirstIssue(ctx, () => validateId("id", own), ["id"]);
    if (fact.validTo !== null && fact.validTo < fact.validFrom) {
      ctx.addIssue({ code: "custom", message: `must not be before valid_from (${fact.validFrom})`, path: ["validTo"] });
    }
  });

/** A `SummaryRecord`, as an export carries it. */
export const summaryRecordSchema = z
  .object({
    id: idSchema("id"),
    text: z.string().min(1),
    sessionId: idSchema("sessionId"),
    fromMessageId: idSchema("fromMessageId"),
    toMessageId: idSchema("toMessageId"),
    messageIds: z.array(idSchema("messageIds")),
    method: z.enum(["model", "rules"]),
    createdAt: time("When the summary was made."),
    stale: z.literal(true).optional(),
  })
  .strict();

/**
 * An idempotency record's result: the library's turn result (camelCase, taken whole: never
 * re-cased), held to `turnResultSchema` as a live turn's is. A turn that ended in ERROR is never
 * recorded (a retry answers it again), so an imported one may not be either.
 */
const turnResultField = z
  .record(z.string(), z.unknown())
  .superRefine((result, ctx) => {
    // Named at the result, the field within it in the message: the result's keys are the library's (camelCase), never re-cased.
    const parsed = turnResultSchema.safeParse(result);
    const issue = parsed.error?.issues[0];
    if (issue) ctx.addIssue({ code: "custom", message: `${issue.path.join(".") || "result"}: ${issue.message}` });
    else if (parsed.data?.status === "ERROR") ctx.addIssue({ code: "custom", message: "status: a turn that ended in ERROR is never recorded (a retry answers it again)" });
  })
  // Stored as read: keys the schema does not know are dropped (on a failed check it is refused anyway, untouched).
  .overwrite((result) => turnResultSchema.safeParse(result).data ?? result)
  .meta({ description: "What the caller got back, replayed on a retry: the library's turn result (camelCase, as the library gives it), checked as a live turn's is." });

/**
 * A finished turn's idempotency record (see `TurnRecord`), as an export carries it: a retry of
 * `key` after export → forget → import replays `result` instead of answering again.
 */
export const turnRecordSchema = z
  .object({
    sessionId: idSchema("sessionId"),
    key: idSchema("key", "The client's message id: the idempotency key."),
    text: z.string(),
    parentMessageId: idSchema("parentMessageId").nullable(),
    result: turnResultField,
    createdAt: time("When the turn finished."),
  })
  .strict();

/** A whole user's memory, as `exportUser` gives it and `importSessions` takes it back. */
export const userMemorySchema = z
  .object({
    version: z.literal(1),
    userId: idSchema("userId"),
    sessions: importSessionsSchema,
    events: z.array(eventRecordSchema),
    facts: z.array(factRecordSchema),
    summaries: z.array(summaryRecordSchema),
    turns: z.array(turnRecordSchema).optional().meta({ description: "Idempotency records of finished turns (absent in older exports)." }),
    entities: z
      .array(entityNodeSchema)
      .optional()
      .meta({ description: "The entity graph, restored as it is (absent in older exports: the graph is then extracted again from the imported messages)." }),
  })
  .strict()
  .meta({ description: "Sessions and their messages (in the order they were written), events, facts with validity, summaries, idempotency records, the entity graph." });

/** One past message to import (see `importMessageSchema`). */
export type ImportMessage = z.input<typeof importMessageSchema>;
/** One past session to import (see `importSessionSchema`). */
export type ImportSession = z.input<typeof importSessionSchema>;
/** Every layer of one user's memory, as `exportUser` gives it; `importSessions` takes it back. */
export type UserMemoryExport = z.output<typeof userMemorySchema>;
/** A finished turn's idempotency record, as an export carries it. */
export type TurnRecordExport = z.output<typeof turnRecordSchema>;
/** A session as validated: times normalised to UTC ISO strings. */
export type ParsedImportSession = z.output<typeof importSessionSchema>;

/** What an import may be: a list of sessions, or a whole export. */
export type ImportInput = readonly ImportSession[] | z.input<typeof userMemorySchema>;

/** An import, validated: sessions and the records an export carried (none for a plain list). */
export type ParsedImport = Required<Omit<UserMemoryExport, "version" | "userId" | "entities">> & {
  /** The user the document was exported from (none for a plain list of sessions). */
  userId?: string;
  /** The document's entity graph; none (a plain list, an older export): extracted from the imported messages. */
  entities?: UserMemoryExport["entities"];
};

/** Imports parsed already by these schemas' rules (see `validatedImport`). */
const VALIDATED = new WeakSet<object>();

/**
 * Marks an import parsed by the rules of these schemas (the HTTP service's request schemas are
 * derived from them), so that `parseImport` takes it as it is: a request is checked once.
 */
export function validatedImport(parsed: ParsedImportSession[] | UserMemoryExport): ImportInput {
  VALIDATED.add(parsed);
  return parsed;
}

/**
 * Parses an import (a list of sessions, or an export document) or throws a user error naming the
 * first bad field from the input's root: "2.messages.0.role" in a list, "sessions.2…" in a document.
 * Bounds come first: more than `MAX_IMPORT_MESSAGES` messages or `MAX_IMPORT_CHARS` of text is
 * IMPORT_TOO_LARGE, then the structure bound and text rule (`assertJsonBounds`), before anything
 * else is read. An import marked by `validatedImport` is taken as it is.
 */
export function parseImport(input: unknown): ParsedImport {
  const parsed = VALIDATED.has(input as object) ? (input as ParsedImportSession[] | UserMemoryExport) : parseUnchecked(input);
  if (Array.isArray(parsed)) return { sessions: parsed, events: [], facts: [], summaries: [], turns: [] };
  const { version: _version, turns = [], ...layers } = parsed;
  return { ...layers, turns };
}

function parseUnchecked(input: unknown): ParsedImportSession[] | UserMemoryExport {
  assertImportSize(input);
  assertJsonBounds(input);
  return Array.isArray(input) ? parseWith(importSessionsSchema, input) : parseWith(userMemorySchema, input);
}

/** Throws IMPORT_TOO_LARGE when an import (in any shape) is over the bounds; reads nothing else of it. */
export function assertImportSize(input: unknown): void {
  const sessions = Array.isArray(input) ? input : (input as { sessions?: unknown } | null)?.sessions;
  if (!Array.isArray(sessions)) return;
  let messages = 0;
  let chars = 0;
  for (const session of sessions as unknown[]) {
    const list = (session as { messages?: unknown } | null)?.messages;
    if (!Array.isArray(list)) continue;
    messages += list.length;
    for (const message of list as unknown[]) {
      const text = (message as { text?: unknown } | null)?.text;
      if (typeof text === "string") chars += text.length;
    }
  }
  if (messages > MAX_IMPORT_MESSAGES || chars > MAX_IMPORT_CHARS) {
    throw new MemoryGraphError(
      "IMPORT_TOO_LARGE",
      `an import carries at most ${MAX_IMPORT_MESSAGES} messages and ${MAX_IMPORT_CHARS} characters of text; this one has ${messages} and ${chars}: send it in parts`,
      { kind: "user", field: "sessions" },
    );
  }
}

/** Parses `value` with `schema`, or throws INVALID_INPUT (UNKNOWN_FIELD) naming the first bad field, dotted. */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown, root = "input"): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const unknownKey = issue?.code === "unrecognized_keys";
  const path = unknownKey ? [...issue.path, issue.keys[0] ?? ""] : (issue?.path ?? []);
  const field = path.map(String).join(".") || root;
  const detail = unknownKey ? `unknown field ${issue.keys.join(", ")}` : (issue?.message ?? "invalid");
  throw new MemoryGraphError(unknownKey ? "UNKNOWN_FIELD" : "INVALID_INPUT", `${field}: ${detail}`, { kind: "user", field });
}
