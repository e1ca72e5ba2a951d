import { z } from "zod";
import { invalidInput } from "../errors.js";

/** Who a turn belongs to. Every stored item lives under the tenant, then the user. */
export interface MemoryScope {
  tenantId: string;
  userId: string;
  sessionId: string;
}

export const MAX_ID_LENGTH = 128;
/** Control (Cc) and format (Cf: bidi overrides, zero-width characters) characters, and line/paragraph separators. */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
/** White space at either end. */
const SURROUNDING_SPACE = /^\s|\s$/u;
/**
 * Unicode's Default_Ignorable_Code_Point set (DerivedCoreProperties.txt, Unicode 15.1): characters
 * that render as nothing, such as variation selectors (U+FE00–U+FE0F, U+E0100–U+E01EF), Hangul
 * fillers (U+115F, U+1160, U+3164, U+FFA0), U+034F and the Mongolian free variation selectors.
 * JS regexes have no `\p{Default_Ignorable_Code_Point}`, so the ranges are listed here (a regex
 * class of them would hold combining characters); most of the set is Cf and refused by INVISIBLE already.
 */
const IGNORABLE: readonly (readonly [number, number])[] = [
  [0x00ad, 0x00ad], [0x034f, 0x034f], [0x061c, 0x061c], [0x115f, 0x1160], [0x17b4, 0x17b5], [0x180b, 0x180f],
  [0x200b, 0x200f], [0x202a, 0x202e], [0x2060, 0x206f], [0x3164, 0x3164], [0xfe00, 0xfe0f], [0xfeff, 0xfeff],
  [0xffa0, 0xffa0], [0xfff0, 0xfff8], [0x1bca0, 0x1bca3], [0x1d173, 0x1d17a], [0xe0000, 0xe0fff],
];
/** A combining mark (Mn, Mc, Me) at the start: it has no base to sit on (a lone U+0301 renders as nothing or on what comes before the id). */
const LEADING_MARK = /^\p{M}/u;

/**
 * Checks one identifier: well-formed Unicode (no lone surrogate, which no URL can carry) in NFC,
 * non-empty, at most 128 characters, no `/`, no `..`, no control or format characters (so no bidi
 * override and no zero-width character), no other default-ignorable character (variation
 * selectors, Hangul fillers), no combining mark at the start (marks inside, as in Thai or
 * Devanagari words, are fine), no white space at either end. Two ids that look alike
 * are then the same string or one of them is refused. Throws a user error naming `field`
 * otherwise; returns the id unchanged.
 */
export function validateId(field: string, value: unknown): string {
  if (typeof value !== "string") throw invalidInput(field, "must be a string", "INVALID_ID");
  if (!value.isWellFormed()) throw invalidInput(field, "must be well-formed Unicode (no lone surrogates)", "INVALID_ID");
  if (value.trim().length === 0) throw invalidInput(field, "must not be empty", "INVALID_ID");
  if (value.length > MAX_ID_LENGTH) throw invalidInput(field, `must be at most ${MAX_ID_LENGTH} characters`, "INVALID_ID");
  if (value.includes("/")) throw invalidInput(field, "must not contain '/'", "INVALID_ID");
  if (value.includes("..")) throw invalidInput(field, "must not contain '..'", "INVALID_ID");
  if (INVISIBLE.test(value)) throw invalidInput(field, "must not contain control or format characters (bidi controls, zero-width characters)", "INVALID_ID");
  const ignorable = ignorableIn(value);
  if (ignorable !== undefined) throw invalidInput(field, `must not contain ${codePointOf(ignorable)}, a character that renders as nothing (variation selectors, Hangul fillers and other default-ignorable characters)`, "INVALID_ID");
  if (LEADING_MARK.test(value)) throw invalidInput(field, `must not begin with a combining mark (${codePointOf(value)})`, "INVALID_ID");
  if (SURROUNDING_SPACE.test(value)) throw invalidInput(field, "must not begin or end with white space", "INVALID_ID");
  if (value.normalize("NFC") !== value) throw invalidInput(field, "must be in Unicode normalization form C (NFC)", "INVALID_ID");
  return value;
}

/** The first character of `value` in IGNORABLE, if any. */
function ignorableIn(value: string): string | undefined {
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    if (IGNORABLE.some(([first, last]) => code >= first && code <= last)) return char;
  }
  return undefined;
}

/** `U+FE0F`: the first code point of `text`. */
function codePointOf(text: string): string {
  return `U+${(text.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}

/** What `validateId` accepts, in words (schemas and the API document describe ids with it). */
export const ID_RULES = `1–${MAX_ID_LENGTH} characters of well-formed Unicode in NFC, without '/', '..', control, format or other default-ignorable characters (such as variation selectors and Hangul fillers), a combining mark at the start, or white space at either end`;

/**
 * An id as `validateId` accepts it, its errors reported under `field` (as the caller names it).
 * The lengths are metadata for JSON Schema readers; `validateId` does the checking.
 */
export const idSchema = (field: string, description = `An id: ${ID_RULES}.`) =>
  z
    .string()
    .superRefine((value, ctx) => {
      try {
        validateId(field, value);
      } catch (error) {
        ctx.addIssue({ code: "custom", message: (error as Error).message.replace(`${field}: `, "") });
      }
    })
    .meta({ description, minLength: 1, maxLength: MAX_ID_LENGTH });

/** A tenant and a user: whose memory a call reads or changes. */
export type UserScope = Pick<MemoryScope, "tenantId" | "userId">;

declare const checked: unique symbol;
/**
 * Ids `validateScope` / `validateUser` accepted: the one value a library call's ids become where
 * they enter (the facade; the HTTP service's tenant is its API key's, checked when the keys are
 * read). Code below takes this type instead of checking the ids again.
 */
export type Checked<S extends UserScope> = S & { readonly [checked]: true };

/** Validates all three ids of a scope. */
export function validateScope(scope: MemoryScope): Checked<MemoryScope> {
  return {
    tenantId: validateId("tenantId", scope.tenantId),
    userId: validateId("userId", scope.userId),
    sessionId: validateId("sessionId", scope.sessionId),
  } as Checked<MemoryScope>;
}

/** Validates the tenant and user ids of `user`. */
export function validateUser(user: UserScope): Checked<UserScope> {
  return { tenantId: validateId("tenantId", user.tenantId), userId: validateId("userId", user.userId) } as Checked<UserScope>;
}

/**
 * Encodes an id as a stored label: the one form an id takes in storage keys (store namespaces,
 * checkpoint threads, lock keys). LangGraph's `BaseStore` refuses namespace labels with `.` or `:`
 * (and a root named `langgraph`), yet user ids such as e-mail addresses have dots; `%`-escaping
 * keeps the mapping one-to-one.
 */
export function encodeLabel(id: string): string {
  const escaped = id.replace(/%/g, "%25").replace(/\./g, "%2E").replace(/:/g, "%3A");
  return escaped === "langgraph" ? "%6Canggraph" : escaped;
}

/** The id a label encodes. */
export function decodeLabel(label: string): string {
  return label.replace(/%(25|2E|3A|6C)/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/**
 * The checkpointer thread of a session: its ids as the store's namespace labels (`encodeLabel`),
 * joined by `/`. Ids cannot contain `/`, so the join is unambiguous.
 */
export function threadIdOf(scope: MemoryScope): string {
  return `${userKeyOf(scope)}/${encodeLabel(scope.sessionId)}`;
}

/** The key of a user (tenant and user labels joined by `/`): a lock key no thread id takes (thread ids have three parts). */
export function userKeyOf(user: UserScope): string {
  return `${encodeLabel(user.tenantId)}/${encodeLabel(user.userId)}`;
}

/** Whether `part` is a label `encodeLabel` can have made (it is the encoding of what it decodes to). */
const isLabel = (part: string): boolean => encodeLabel(decodeLabel(part)) === part;

/**
 * The thread id earlier releases gave the session whose thread is `threadId` (its ids as given,
 * not as labels: each part of `threadId` decoded), when that old thread may be taken for this
 * session's; otherwise undefined. Undefined when:
 * - the ids have no `.`, `:` or `%` (the old id is `threadId` itself: nothing to look for);
 * - `threadId` is not a session's thread of this naming (not three labels, e.g. a caller's own id);
 * - the old id is also a thread of this naming (every part a label, as for a user id `a%2Eb`,
 *   whose old thread `t/a%2Eb/s` is the current thread of user `a.b`): it cannot be told apart,
 *   and another session's thread must never be taken or deleted.
 * Forgetting a session deletes its old thread too; its first read adopts it (see `legacy-threads.ts`).
 */
export function legacyThreadOf(threadId: string): string | undefined {
  const parts = threadId.split("/");
  if (parts.length !== 3 || !parts.every(isLabel)) return undefined;
  const ids = parts.map(decodeLabel);
  return ids.every(isLabel) ? undefined : ids.join("/");
}
