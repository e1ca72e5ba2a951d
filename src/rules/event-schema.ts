import { z } from "zod";

/** The event types every classifier (model or keyword fallback) chooses from. */
export const EVENT_TYPES = [
  "INQUIRY",
  "FEEDBACK",
  "REQUEST",
  "COMPLAINT",
  "TRANSACTION",
  "SUPPORT",
  "INFORMATION",
  "GENERIC_EVENT",
] as const;

/** One of {@link EVENT_TYPES}. */
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The classification of one user message. `importance` is 0..1; `language` is a short
 * BCP-47-like tag ("en", "th", "hi"); `attributeUpdates` are user attributes or facts the
 * message states (e.g. `{ key: "phone", value: "+66 81 234 5678" }`).
 */
export const classifiedEventSchema = z.object({
  type: z.enum(EVENT_TYPES).describe("The kind of event the user message is"),
  importance: z.number().min(0).max(1).describe("How important it is to remember, 0..1"),
  intent: z.string().describe("A short snake_case intent, e.g. balance_inquiry"),
  entities: z
    .array(z.object({ type: z.string(), value: z.string() }))
    .describe("Named things the message refers to (people, products, amounts, places)"),
  language: z.string().describe('Language of the message as a short tag: "en", "th", "hi", ...'),
  payload: z.record(z.string(), z.unknown()).describe("Extra structured details, e.g. amount"),
  attributeUpdates: z
    .array(z.object({ key: z.string(), value: z.string() }))
    .describe('User attributes or facts stated in the message, e.g. {key:"phone", value:"..."}'),
  relations: z
    .array(z.object({ from: z.string(), type: z.string(), to: z.string() }))
    .optional()
    .describe('How people, places and organisations the message names relate, e.g. {from:"Priya", type:"lives_in", to:"Pune"} ("I": the speaker); a model\'s answer only, for the entity graph'),
});

/**
 * What a model is asked to answer: only what needs a model, in few output tokens (output tokens
 * cost the most and pace the turn). `type`, `importance` and `intent` are required; `entities`,
 * `payload` and `attributeUpdates` are left out when empty; entities and attributes are compact
 * "kind:value" strings, not objects; the language is detected locally. `normalizeEventCandidate`
 * turns an answer into a {@link ClassifiedEvent} (and accepts the object forms too).
 */
export const modelEventSchema = z.object({
  type: classifiedEventSchema.shape.type,
  importance: classifiedEventSchema.shape.importance,
  intent: classifiedEventSchema.shape.intent,
  entities: z
    .array(z.string())
    .optional()
    .describe('Named things the message refers to as "type:value", e.g. "person:Bharat", "product:iPhone 15"; omit when none'),
  language: z.string().optional().describe('Only when the message is not in English: its short tag, e.g. "es", "th", "hi"; omit for English'),
  payload: z.record(z.string(), z.unknown()).optional().describe("Extra structured details, e.g. amount; omit when none"),
  attributeUpdates: z
    .array(z.string())
    .optional()
    .describe('Facts the user states about themself as "key:value", e.g. "phone:+66 81 234 5678"; omit when none'),
  relations: z
    .array(z.string())
    .optional()
    .describe('How people, places and organisations relate as "subject|relation|object", "I" for the user, e.g. "Priya|sister_of|I", "Priya|lives_in|Pune"; omit when none'),
});

/** A validated classification; see {@link classifiedEventSchema}. */
export type ClassifiedEvent = z.infer<typeof classifiedEventSchema>;

/** An entity mentioned in a message or still active in the session. */
export interface EventEntity {
  type: string;
  value: string;
}

/** What the session remembers of recent turns, used to resolve follow-ups ("usko", "it"). */
export interface ClassifyContext {
  lastIntent?: string;
  activeEntities?: EventEntity[];
  /** The deployment's profile keys (with descriptions): attributeUpdates are asked for these only. */
  profile?: string;
}
