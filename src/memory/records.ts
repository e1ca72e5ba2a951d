import type { FileRef } from "../messages/message-meta.js";

/**
 * The records the memory layers keep in the store. Plain JSON objects, so any LangGraph
 * `BaseStore` can hold them.
 */

/** One message of a session transcript (every branch of every regeneration is kept). */
export interface TranscriptRecord {
  id: string;
  role: "user" | "assistant";
  /** The message text. Recall indexes it with `speaker` and the calendar date of `createdAt`. */
  text: string;
  /** Who said it, by name, when known (e.g. the user's display name); indexed with the text. */
  speaker?: string;
  parentId: string | null;
  sessionId: string;
  createdAt: string;
  files?: FileRef[];
  model?: string;
  /**
   * `false` for a message that is kept in the transcript (the window and the session history
   * show it) but is not conversation to remember: the offline responder's replies. Such a
   * message is stored unindexed and recall never returns it.
   */
  recall?: false;
  /** Set once a deleted value was cut out of `text` (where it stood, `REDACTED` from redaction.ts). */
  redacted?: true;
  /**
   * Fact-augmented keys: the relations extracted from the message, in words its text lacks
   * ("Priya lives in Pune"), indexed with it (written only with `limits.recall.graph.factKeys`;
   * derived: an edit drops them, an export leaves them out).
   */
  keys?: string;
}

export interface EntityRef {
  type: string;
  value: string;
}

/** A classified user event kept in long-term memory (importance at or over the threshold). */
export interface EventRecord {
  id: string;
  type: string;
  importance: number;
  intent: string;
  entities: EntityRef[];
  language: string;
  payload: Record<string, unknown>;
  text: string;
  messageId: string;
  sessionId: string;
  createdAt: string;
  classifiedBy: "model" | "keywords";
}

/**
 * A user attribute or fact. A changed value supersedes the old record: the old one stays, with
 * `validTo` set to when it stopped being true. The current value has `validTo: null`.
 */
export interface FactRecord {
  id: string;
  key: string;
  value: string;
  text: string;
  validFrom: string;
  validTo: string | null;
  /** When it stops being true by itself (the message bounded it: "this week", "until Friday"); absent: until it changes. */
  expiresAt?: string;
  sourceMessageIds: string[];
  sessionId: string;
  /** Set on a fact a person pinned: it always reaches the prompt, and extraction never supersedes it (only an edit does). */
  pinned?: true;
  /** `"edit"` on a version a person wrote through the memory API; absent on one extraction learned. */
  source?: "edit";
}

/** A session summary, with the message-id range it covers. */
export interface SummaryRecord {
  id: string;
  text: string;
  sessionId: string;
  fromMessageId: string;
  toMessageId: string;
  messageIds: string[];
  method: "model" | "rules";
  createdAt: string;
  /** Set when a message or fact it covers was deleted or edited since: recall no longer shows it. */
  stale?: true;
}
