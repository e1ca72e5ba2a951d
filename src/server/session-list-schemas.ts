import { z } from "zod";
import { MAX_SESSIONS_PAGE } from "../memory/session-list.js";

/** The query and answer of GET /v1/users/{user_id}/sessions. */

const wholeNumber = z.string().regex(/^\d{1,9}$/, "must be a whole number");

export const sessionsQuerySchema = z
  .object({
    limit: wholeNumber.optional().meta({ description: `Sessions per page, 1–${MAX_SESSIONS_PAGE} (default 20).` }),
    offset: wholeNumber.optional().meta({ description: "Sessions to skip (default 0): the `next_offset` of the previous page." }),
  })
  .strict();

export const sessionsResponseSchema = z
  .object({
    user_id: z.string(),
    sessions: z.array(
      z
        .object({
          session_id: z.string(),
          title: z.string().meta({ description: "The model's title when one was made, else the first user message (clipped)." }),
          message_count: z.number().int().nonnegative(),
          first_activity_at: z.string(),
          last_activity_at: z.string(),
        })
        .strict(),
    ),
    total: z.number().int().nonnegative().meta({ description: "The user's sessions in all." }),
    next_offset: z.number().int().nullable().meta({ description: "The offset of the next page; null on the last." }),
  })
  .strict()
  .meta({ id: "UserSessions" });
