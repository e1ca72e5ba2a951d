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
 * Checks one identifier: well-formed Unicode (no lone surrogate, which no URL can carry) in NFC,
 * non-empty, at most 128 characters, no `/`, no `..`, no control or format characters (so no bidi
 * override and no zero-width character), no white space at either end. Two ids that look alike
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
  if (SURROUNDING_SPACE.test(value)) throw invalidInput(field, "must not begin or end with white space", "INVALID_ID");
  if (value.normalize("NFC") !== value) throw invalidInput(field, "must be in Unicode normalization form C (NFC)", "INVALID_ID");
  return value;
}

/** What `validateId` accepts, in words (schemas and the API document describe ids with it). */
export const ID_RULES = `1–${MAX_ID_LENGTH} characters of well-formed Unicode in NFC, without '/', '..', control or format characters, or white space at either end`;

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

/** Validates all three ids of a scope. */
export function validateScope(scope: MemoryScope): MemoryScope {
  return {
    tenantId: validateId("tenantId", scope.tenantId),
    userId: validateId("userId", scope.userId),
    sessionId: validateId("sessionId", scope.sessionId),
  };
}

/** The checkpointer thread of a session. Ids cannot contain `/`, so the join is unambiguous. */
export function threadIdOf(scope: MemoryScope): string {
  return `${scope.tenantId}/${scope.userId}/${scope.sessionId}`;
}
