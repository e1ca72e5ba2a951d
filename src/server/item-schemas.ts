import { z } from "zod";
import { factChangeSchema, MAX_PAGE } from "../memory/item-schemas.js";
import { idSchema } from "../memory/scope.js";

/**
 * The schemas of the per-item routes (snake_case): the path ids, the paging query, and each
 * item as the API answers it. Records are answered with every field they have (a field added to a
 * layer later is not dropped), the ones named here described for readers of the document.
 */

const digits = (description: string) => z.string().regex(/^\d+$/, "must be a whole number").optional().meta({ description });

/** `?limit=&offset=` of a listing. */
const page = {
  limit: digits(`How many items, 1–${MAX_PAGE} (default 50).`),
  offset: digits("How many of the newest to skip (default 0)."),
};

export const pageQuerySchema = z.object(page).strict();
export const eventsQuerySchema = z.object({ ...page, type: z.string().min(1).optional().meta({ description: "Only events of this type, e.g. COMPLAINT." }) }).strict();
export const messagesQuerySchema = z.object({ ...page, session_id: idSchema("session_id", "Only this session's messages.").optional() }).strict();
export const factsQuerySchema = z
  .object({ current: z.enum(["true", "false"]).optional().meta({ description: "`true`: only the facts true now (default: every version)." }) })
  .strict();

export const factDeleteQuerySchema = z
  .object({
    versions: z
      .enum(["one", "all"])
      .optional()
      .meta({ description: "`one` (default): this version only, the current value stays unless it is this one; `all`: every version of the fact's key." }),
  })
  .strict();

const itemId = (name: string, description: string) =>
  z.string().min(1, "must be a non-empty string").max(512, "must be at most 512 characters").meta({ description: `${description} (URL-encoded; fact ids carry their key, e.g. \`location.city@m1\`).` });

export const factPathSchema = z.object({ user_id: idSchema("user_id", "The user."), fact_id: itemId("fact_id", "The fact (one version)") });
export const eventPathSchema = z.object({ user_id: idSchema("user_id", "The user."), event_id: itemId("event_id", "The event (its message's id)") });
export const summaryPathSchema = z.object({ user_id: idSchema("user_id", "The user."), summary_id: itemId("summary_id", "The summary") });
export const messagePathSchema = z.object({
  user_id: idSchema("user_id", "The user."),
  session_id: idSchema("session_id", "The session."),
  message_id: itemId("message_id", "The stored message"),
});

const text = z.string();
const time = z.string().meta({ description: "ISO 8601." });

export const factSchema = z
  .object({
    id: text,
    key: text,
    value: text,
    text: text.meta({ description: "How the fact reads in the prompt." }),
    valid_from: time,
    valid_to: time.nullable().meta({ description: "When a newer version superseded it; null while current." }),
    source_message_ids: z.array(text).meta({ description: "The messages it was learned from (none for an edit)." }),
    session_id: text,
    pinned: z.literal(true).optional().meta({ description: "Pinned: always in the prompt, never superseded by extraction." }),
    source: z.literal("edit").optional().meta({ description: "`edit`: written by a person through this API; absent: learned by extraction." }),
    expires_at: time.optional().meta({ description: "When it stops being true by itself and leaves the prompt; absent: until it changes." }),
  })
  .loose()
  .meta({ id: "Fact" });

/** The body of a fact's correction: the library's change (`factChangeSchema`) with `expiresAt` as `expires_at`. */
const { expiresAt, ...factChange } = factChangeSchema.shape;
export const factChangeBodySchema = z
  .object({ ...factChange, expires_at: expiresAt })
  .strict()
  .refine((body) => Object.values(body).some((field) => field !== undefined), { message: "give value, pinned, expires_at or more than one" })
  .meta({ id: "FactChange" });

export const factVersionSchema = factSchema
  .extend({ superseded_by: text.nullable().meta({ description: "The version that replaced this one (null while current)." }) })
  .meta({ id: "FactVersion" });

export const eventSchema = z
  .object({ id: text, type: text, importance: z.number(), intent: text, text, message_id: text, session_id: text, created_at: time })
  .loose()
  .meta({ id: "Event" });

export const summarySchema = z
  .object({
    id: text,
    text,
    session_id: text,
    message_ids: z.array(text),
    created_at: time,
    stale: z.literal(true).optional().meta({ description: "A message or fact it covers was deleted or corrected since: recall no longer shows it." }),
  })
  .loose()
  .meta({ id: "Summary" });

export const storedMessageSchema = z
  .object({ id: text, role: z.enum(["user", "assistant"]), text, parent_id: text.nullable(), session_id: text, created_at: time })
  .loose()
  .meta({ id: "StoredMessage" });

const count = z.number().int().nonnegative();

export const shownSchema = z
  .object({ messages: z.array(text), facts: z.array(text), events: z.array(text), summaries: z.array(text) })
  .strict()
  .meta({ description: "The ids of what the memory context showed the model, by layer." });

export const turnContextSchema = z
  .object({ message_id: text, reply_id: text.nullable(), session_id: text, created_at: time, tokens: count, shown: shownSchema })
  .strict()
  .meta({ id: "TurnContext" });

/** A listing's answer: the user, the items of the page, and the page asked for. */
export function listingSchema<T extends z.ZodType>(name: string, item: T, id: string) {
  return z
    .object({ user_id: text, [name]: z.array(item), limit: count.optional(), offset: count.optional() })
    .strict()
    .meta({ id });
}

export const factResponseSchema = z.object({ user_id: text, fact: factSchema, history: z.array(factVersionSchema).optional() }).strict().meta({ id: "FactAnswer" });
export const eventResponseSchema = z.object({ user_id: text, event: eventSchema }).strict().meta({ id: "EventAnswer" });
export const summaryResponseSchema = z.object({ user_id: text, summary: summarySchema }).strict().meta({ id: "SummaryAnswer" });
export const messageResponseSchema = z.object({ user_id: text, message: storedMessageSchema }).strict().meta({ id: "StoredMessageAnswer" });
export const turnContextResponseSchema = z.object({ user_id: text, context: turnContextSchema }).strict().meta({ id: "TurnContextAnswer" });

export const itemDeletedSchema = z
  .object({
    user_id: text,
    deleted: z
      .object({
        facts: count.optional(),
        entities: count.optional(),
        relations: count.optional(),
        events: count.optional(),
        summaries: count.optional(),
        messages: count.optional(),
        stale_summaries: count.optional(),
        redacted_messages: count.optional(),
        redacted_records: count.optional(),
        restored_facts: count.optional(),
        restored_relations: count.optional(),
        relinked: count.optional(),
      })
      .strict()
      .meta({ description: "What went (0 when it was already gone: deleting twice is safe), summaries marked stale, stored messages and other records (events, turn results, titles) a deleted value was cut out of, facts (or a relation) current again, messages relinked to the deleted one's parent." }),
  })
  .strict()
  .meta({ id: "ItemDeleted" });

const kinds = ["message", "fact", "event", "summary"] as const;

/** `GET /v1/users/{id}/memory/items`: a search of every layer, with filters (strings, as a query carries them). */
export const itemSearchQuerySchema = z
  .object({
    q: z.string().refine((q) => q.trim() !== "", { message: "must not be empty" }).meta({ description: "What to look for." }),
    kinds: z
      .string()
      .regex(new RegExp(`^(${kinds.join("|")})(,(${kinds.join("|")}))*$`), `must be a comma-separated list of ${kinds.join(", ")}`)
      .optional()
      .meta({ description: "Which layers (default all): message, fact, event, summary, comma-separated." }),
    session_id: idSchema("session_id", "Only this session's items.").optional(),
    from: z.string().optional().meta({ description: "Only items from this time on (ISO 8601 with a zone)." }),
    to: z.string().optional().meta({ description: "Only items up to this time (ISO 8601 with a zone)." }),
    event_type: z.string().min(1).optional().meta({ description: "Only events of this type." }),
    min_importance: z.string().regex(/^(0(\.\d+)?|1(\.0+)?)$/, "must be a number from 0 to 1").optional().meta({ description: "Only events at least this important (0..1)." }),
    metadata: z.string().optional().meta({ description: 'Field equality, as a JSON object of strings, numbers or booleans, e.g. `{"role":"user"}` (an event\'s payload fields too).' }),
    limit: digits("How many hits, 1–100 (default 20)."),
  })
  .strict();

const score = z.number().nullable();

export const itemSearchResponseSchema = z
  .object({
    user_id: text,
    query: text,
    hits: z.array(
      z
        .object({
          kind: z.enum(kinds),
          id: text,
          session_id: text.nullable(),
          text,
          created_at: time,
          score: z.number().meta({ description: "What the hits are ordered by." }),
          scores: z
            .object({ lexical: score, context: score, vector: score, fused: z.number(), importance: score })
            .strict()
            .meta({ description: "Messages: normalised BM25, neighbour context, cosine similarity, fused (best message 1). Facts, events, summaries: the share of the query's terms they hold (lexical = fused); events also their importance." }),
        })
        .strict(),
    ),
  })
  .strict()
  .meta({ id: "MemoryItemSearch" });
