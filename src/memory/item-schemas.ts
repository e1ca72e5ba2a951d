import { MemoryGraphError } from "../errors.js";
import { z } from "zod";
import { parseWith } from "./import-schema.js";

/**
 * What a person may send to correct one remembered item, checked once (strict: an unknown field is
 * UNKNOWN_FIELD, a bad one INVALID_INPUT naming it). The HTTP API takes the same schemas: their
 * fields read the same in snake_case.
 */

/** Most characters of a fact value, a message, an event or a summary a correction may write. */
export const MAX_EDIT_CHARS = 32_000;

const text = (description: string) =>
  z
    .string()
    .max(MAX_EDIT_CHARS)
    .refine((value) => value.trim() !== "", { message: "must not be empty" })
    .meta({ description });

/** An ISO 8601 date-time with a zone, normalised to UTC milliseconds (so it compares as text, as every stored time does). */
const dateTime = (description: string) =>
  z.iso
    .datetime({ offset: true })
    // An overwrite runs even when the format check failed: such a value is refused anyway, untouched.
    .overwrite((value) => (Number.isNaN(Date.parse(value)) ? value : new Date(value).toISOString()))
    .meta({ description, example: "2026-11-27T23:59:59Z" });

const atLeastOne = (fields: string[]) => (value: object) => fields.some((field) => (value as Record<string, unknown>)[field] !== undefined);

export const factChangeSchema = z
  .object({
    value: text("The fact's new value: a new version (`source: \"edit\"`), the one it replaces closed.").optional(),
    pinned: z.boolean().optional().meta({ description: "Pin (always in the prompt, never superseded by extraction) or unpin." }),
    expiresAt: dateTime(
      "When the fact stops being true by itself and leaves the prompt (a value it superseded is current again); null: until it changes. With a new value it bounds the new version; alone it bounds the current one.",
    )
      .nullable()
      .optional(),
  })
  .strict()
  .refine(atLeastOne(["value", "pinned", "expiresAt"]), { message: "give value, pinned, expiresAt or more than one" })
  .meta({ id: "FactChange" });

export const eventChangeSchema = z
  .object({
    type: z.string().min(1).max(64).optional().meta({ description: "The event type, e.g. COMPLAINT." }),
    importance: z.number().min(0).max(1).optional().meta({ description: "Importance, 0..1." }),
    text: text("The event's text.").optional(),
  })
  .strict()
  .refine(atLeastOne(["type", "importance", "text"]), { message: "give type, importance or text" })
  .meta({ id: "EventChange" });

export const textChangeSchema = z
  .object({ text: text("The new text (a message is re-indexed).") })
  .strict()
  .meta({ id: "TextChange" });

export type FactChangeInput = z.input<typeof factChangeSchema>;
export type EventChangeInput = z.input<typeof eventChangeSchema>;
export type TextChangeInput = z.input<typeof textChangeSchema>;

/** Most items one page of a listing holds. */
export const MAX_PAGE = 500;

const pageSchema = z
  .object({
    limit: z.number().int().min(1).max(MAX_PAGE).default(50),
    offset: z.number().int().min(0).default(0),
  })
  .strict();

/** A page of a listing as a caller gives it (limit 1..500, default 50; offset ≥ 0, default 0). */
export type PageInput = z.input<typeof pageSchema>;

/** Parses `raw` with `schema`, errors naming the field (INVALID_INPUT / UNKNOWN_FIELD). */
export function parseChange<T>(schema: z.ZodType<T>, raw: unknown): T {
  return parseWith(schema, raw ?? {}, "change");
}

/**
 * `page` when its `limit` is a whole number from 1 to `max` and its `offset` one ≥ 0; otherwise
 * INVALID_INPUT naming the field (the checks of listings that take the page as numbers).
 */
export function checkedPage<P extends { limit: number; offset: number }>(page: P, max: number): P {
  if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > max) {
    throw new MemoryGraphError("INVALID_INPUT", `limit: must be a whole number from 1 to ${max}`, { kind: "user", field: "limit" });
  }
  if (!Number.isSafeInteger(page.offset) || page.offset < 0) {
    throw new MemoryGraphError("INVALID_INPUT", "offset: must be a whole number, 0 or more", { kind: "user", field: "offset" });
  }
  return page;
}

export function parsePage(raw: PageInput | undefined): { limit: number; offset: number } {
  return parseWith(pageSchema, raw ?? {}, "page");
}
