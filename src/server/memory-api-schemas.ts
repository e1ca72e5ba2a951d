import { z } from "zod";
import { MAX_IMPORT_CHARS, MAX_IMPORT_MESSAGES, MAX_IMPORTED_TEXT_CHARS } from "../memory/import-schema.js";
import { MAX_SEARCH_LIMIT } from "../memory/search.js";
import { idSchema } from "../state/turn-input.js";

/**
 * The request and response schemas of memory search, import and export (snake_case, strict). An
 * export document is what import takes back, so one schema serves both.
 */

const time = (description: string) => z.iso.datetime({ offset: true }).meta({ description, example: "2023-05-08T13:56:00Z" });
const flag = z.enum(["true", "false"]);

export const searchQuerySchema = z
  .object({
    q: z
      .string()
      .refine((q) => q.trim() !== "", { message: "must not be empty" })
      .meta({ description: "What to look for." }),
    limit: z
      .string()
      .regex(/^\d+$/, "must be a whole number")
      .optional()
      .meta({ description: `How many messages to return, 1–${MAX_SEARCH_LIMIT} (default 10).` }),
    session_id: idSchema("session_id", "Search this session only (default: every session of the user).").optional(),
    memory_context: flag.optional().meta({ description: "`true`: also return the memory block a turn with this message would give the model." }),
  })
  .strict();

const fileSchema = z
  .object({
    type: z.enum(["image", "document", "audio", "video", "custom"]),
    transfer_method: z.enum(["local_file", "remote_url", "tool_file"]),
    upload_file_id: z.string().min(1).optional(),
    tool_file_id: z.string().min(1).optional(),
    url: z.string().optional(),
    belongs_to: z.enum(["user", "assistant"]),
  })
  .strict();

const importMessageSchema = z
  .object({
    id: idSchema("id", "The message id: importing the same id again stores it once."),
    role: z.enum(["user", "assistant"]),
    text: z.string().max(MAX_IMPORTED_TEXT_CHARS),
    speaker: z.string().min(1).max(200).optional().meta({ description: "Who said it, by name; recall indexes it with the text." }),
    created_at: time("When it was said (default: the session's started_at plus one second per position).").optional(),
    parent_id: idSchema("parent_id", "The message it follows (default: the one before it in the list).").nullable().optional(),
    model: z.string().min(1).max(200).optional(),
    files: z.array(fileSchema).max(20).optional(),
    recall: z.literal(false).optional().meta({ description: "`false`: kept in the transcript but never recalled (as offline replies are)." }),
  })
  .strict()
  .meta({ id: "ImportedMessage" });

const sessionSchema = z
  .object({ session_id: idSchema("session_id", "The session."), started_at: time("When the session began."), messages: z.array(importMessageSchema).min(1) })
  .strict()
  .meta({ id: "ImportedSession" });

const eventSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    importance: z.number().min(0).max(1),
    intent: z.string(),
    entities: z.array(z.object({ type: z.string(), value: z.string() }).strict()),
    language: z.string(),
    payload: z.record(z.string(), z.unknown()),
    text: z.string(),
    message_id: z.string(),
    session_id: z.string(),
    created_at: time("When the message was classified."),
    classified_by: z.enum(["model", "keywords"]),
  })
  .strict();

const factSchema = z
  .object({
    id: z.string(),
    key: z.string(),
    value: z.string(),
    text: z.string(),
    valid_from: time("Since when it holds."),
    valid_to: time("When a newer value superseded it; null while current.").nullable(),
    source_message_ids: z.array(z.string()),
    session_id: z.string(),
  })
  .strict();

const summarySchema = z
  .object({
    id: z.string(),
    text: z.string(),
    session_id: z.string(),
    from_message_id: z.string(),
    to_message_id: z.string(),
    message_ids: z.array(z.string()),
    method: z.enum(["model", "rules"]),
    created_at: time("When the summary was made."),
  })
  .strict();

/** Every layer of a user's memory: GET /v1/users/{id}/export answers it, the import route takes it back. */
export const userMemoryDocumentSchema = z
  .object({
    version: z.literal(1),
    user_id: z.string(),
    sessions: z.array(sessionSchema),
    events: z.array(eventSchema),
    facts: z.array(factSchema),
    summaries: z.array(summarySchema),
  })
  .strict()
  .meta({ id: "UserMemoryExport", description: "Sessions and their messages (in the order they were written), events, facts with validity, summaries." });

export const sessionListSchema = z.array(sessionSchema);

export const importRequestSchema = z.union([sessionListSchema, userMemoryDocumentSchema]).meta({
  id: "ImportRequest",
  description:
    `Past sessions, or a whole export document. At most ${MAX_IMPORT_MESSAGES} messages and ${MAX_IMPORT_CHARS} characters of text ` +
    "per request (413 IMPORT_TOO_LARGE above it). A bad element rejects the whole request (`error.field` names its index and field) and nothing is stored.",
});

export const importQuerySchema = z
  .object({ classify: flag.optional().meta({ description: "`true`: classify imported user messages into events and facts, as live turns are (default false)." }) })
  .strict();

const count = z.number().int().nonnegative();

export const importResponseSchema = z
  .object({
    user_id: z.string(),
    sessions: count,
    messages: z.object({ imported: count, skipped: count.meta({ description: "Already stored with the same id, role, speaker and text." }) }).strict(),
    events: count,
    facts: count,
    summaries: count,
    classified: count,
  })
  .strict()
  .meta({ id: "Imported" });

const score = z.number().nullable();

export const searchResponseSchema = z
  .object({
    user_id: z.string(),
    query: z.string(),
    hits: z.array(
      z
        .object({
          id: z.string(),
          session_id: z.string(),
          role: z.enum(["user", "assistant"]),
          speaker: z.string().nullable(),
          text: z.string(),
          created_at: z.string(),
          score: z.number().meta({ description: "The fused score (best hit 1), by which hits are ordered." }),
          scores: z
            .object({ lexical: score, context: score, vector: score, fused: z.number() })
            .strict()
            .meta({ description: "Normalised BM25, neighbour context, cosine similarity (null without embeddings), fused." }),
        })
        .strict(),
    ),
    memory_context: z.object({ text: z.string(), tokens: z.number(), shown_ids: z.array(z.string()) }).strict().optional(),
  })
  .strict()
  .meta({ id: "MemorySearch" });
