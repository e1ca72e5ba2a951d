import { z } from "zod";
import { invalidInput } from "../errors.js";

/** Who a turn belongs to. Every stored item lives under the tenant, then the user. */
export interface MemoryScope {
  tenantId: string;
  userId: string;
  sessionId: string;
}

export const MAX_ID_LENGTH = 128;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Checks one identifier: well-formed Unicode (no lone surrogate, which no URL can carry), non-empty,
 * at most 128 characters, no `/`, no `..`, no control characters. Throws a user error naming
 * `field` otherwise; returns the id unchanged.
 */
export function validateId(field: string, value: unknown): string {
  if (typeof value !== "string") throw invalidInput(field, "must be a string", "INVALID_ID");
  if (!value.isWellFormed()) throw invalidInput(field, "must be well-formed Unicode (no lone surrogates)", "INVALID_ID");
  if (value.trim().length === 0) throw invalidInput(field, "must not be empty", "INVALID_ID");
  if (value.length > MAX_ID_LENGTH) throw invalidInput(field, `must be at most ${MAX_ID_LENGTH} characters`, "INVALID_ID");
  if (value.includes("/")) throw invalidInput(field, "must not contain '/'", "INVALID_ID");
  if (value.includes("..")) throw invalidInput(field, "must not contain '..'", "INVALID_ID");
  if (CONTROL.test(value)) throw invalidInput(field, "must not contain control characters", "INVALID_ID");
  return value;
}

/** What `validateId` accepts, in words (schemas and the API document describe ids with it). */
export const ID_RULES = `1–${MAX_ID_LENGTH} characters of well-formed Unicode, without '/', '..' or control characters`;

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
