import { z } from "zod";
import { idSchema } from "../memory/scope.js";

/**
 * The path and query schemas the memory routes share (snake_case, strict: an unknown parameter is
 * a 400). The turn's request is in turn-routes.ts.
 */

/** `?user_id=` of the session routes (nothing else is accepted). */
export const userQuerySchema = z.object({ user_id: idSchema("user_id", "The user the session belongs to.") }).strict();

/** The query of the user routes: none is accepted. */
export const emptyQuerySchema = z.object({}).strict();

/** The `:user_id` of a user route (strictly decoded, see `pathParams`). */
export const userPathSchema = z.object({ user_id: idSchema("user_id", "The user.") });

/** The `:session_id` of a session route. */
export const sessionPathSchema = z.object({ session_id: idSchema("session_id", "The session.") });
