import { z, type ZodType } from "zod";
import {
  importMessageSchema,
  importSessionSchema,
  importSessionsSchema,
  MAX_IMPORT_CHARS,
  MAX_IMPORT_MESSAGES,
  userMemorySchema,
} from "../memory/import-schema.js";
import { idSchema } from "../memory/scope.js";
import { MAX_SEARCH_LIMIT } from "../memory/search.js";
import { snakeCasing } from "./snake-schema.js";

/**
 * The request and response schemas of memory search, import and export (snake_case, strict). The
 * import and export documents are the core's schemas (src/memory/import-schema.ts) in snake_case;
 * an export document is what import takes back.
 */

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
    as_of: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: "When the question is asked (ISO 8601 with an offset; default now): a relative time in it (\"10 days ago\", \"last Saturday\") is placed against this moment." }),
  })
  .strict();

/** The core import schemas in snake_case (rules, bounds and descriptions the core's), named as components of the API document. */
const snake = snakeCasing(
  new Map<ZodType, string>([
    [importMessageSchema, "ImportedMessage"],
    [importSessionSchema, "ImportedSession"],
    [userMemorySchema, "UserMemoryExport"],
  ]),
);

/** An import of past sessions: parsed, it is the core's `importSessionsSchema` output. */
export const sessionListSchema = snake.request(importSessionsSchema);

/** An import of a whole export document: parsed, it is the core's `userMemorySchema` output. */
export const importDocumentSchema = snake.request(userMemorySchema);

/** Every layer of a user's memory: GET /v1/users/{id}/export answers it, the import route takes it back. */
export const userMemoryDocumentSchema = snake.answer(userMemorySchema);

export const importRequestSchema = z.union([sessionListSchema, importDocumentSchema]).meta({
  id: "ImportRequest",
  description:
    `Past sessions, or a whole export document. At most ${MAX_IMPORT_MESSAGES} messages and ${MAX_IMPORT_CHARS} characters of text ` +
    "per request (413 IMPORT_TOO_LARGE above it). A bad element rejects the whole request (`error.field` names its index and field) and nothing is stored.",
});

export const importQuerySchema = z
  .object({
    classify: flag.optional().meta({ description: "`true`: classify imported user messages into events and facts, as live turns are (default false)." }),
    as_user: idSchema("as_user", "Import an export document of another user as this one: must be the user_id of the path. Without it such a document is refused (IMPORT_USER_MISMATCH).").optional(),
  })
  .strict();

const count = z.number().int().nonnegative();

export const importResponseSchema = z
  .object({
    user_id: z.string(),
    sessions: count,
    messages: z.object({ imported: count, skipped: count.meta({ description: "Already stored with the same id, role, speaker and text." }) }).strict(),
    events: count.meta({ description: "Events written (an import sent again writes, and counts, none)." }),
    facts: count,
    summaries: count,
    turns: count.meta({ description: "Idempotency records of finished turns written." }),
    entities: count.meta({ description: "Entity graph nodes written: restored from an export document, or extracted from the new messages of one without a graph." }),
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
