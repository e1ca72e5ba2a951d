import { setImmediate } from "node:timers/promises";
import type { Context } from "hono";
import { assertImportSize, validatedImport } from "../memory/import-schema.js";
import { snakeKeys } from "./case.js";
import type { RouteDeps, ServerEnv } from "./context.js";
import { readJsonBody } from "./json-body.js";
import {
  importDocumentSchema,
  importQuerySchema,
  importResponseSchema,
  searchQuerySchema,
  searchResponseSchema,
  sessionListSchema,
  userMemoryDocumentSchema,
} from "./memory-api-schemas.js";
import { emptyQuerySchema, parseRequest } from "./request-schemas.js";
import type { RouteHandlers } from "./routes.js";
import { pathId, queryOf } from "./url-params.js";

/** Largest import body by default: an import carries up to 1,000 messages, so more than a turn's limit. */
export const DEFAULT_IMPORT_BODY_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * Memory search, import and export over HTTP, through the facade. The tenant is the key's; the
 * user comes from the path. Requests are checked against the snake_case schemas (so an unknown or
 * bad field is named as sent) and handed to the library in camelCase.
 */
export function memoryApiHandlers(deps: RouteDeps & { importBodyLimitBytes: number }): Pick<RouteHandlers, "searchMemory" | "importSessions" | "exportUser"> {
  const { memory } = deps;

  const searchMemory = async (c: Context<ServerEnv>) => {
    const userId = pathId(c, "user_id");
    const query = parseRequest(searchQuerySchema, queryOf(c), "query");
    const result = await memory.search({
      tenantId: c.get("tenantId"),
      userId,
      query: query.q,
      ...(query.limit === undefined ? {} : { limit: Number(query.limit) }),
      ...(query.session_id === undefined ? {} : { sessionId: query.session_id }),
      withContext: query.memory_context === "true",
    });
    return c.json(searchResponseSchema.parse({ user_id: userId, query: query.q, ...(snakeKeys(result) as object) }), 200);
  };

  const importSessions = async (c: Context<ServerEnv>) => {
    const userId = pathId(c, "user_id");
    const { classify, as_user: asUser } = parseRequest(importQuerySchema, queryOf(c), "query");
    const body = await readJsonBody(c, deps.importBodyLimitBytes);
    // Reading and checking a large body is long synchronous work: other requests go first.
    await setImmediate();
    // Too many messages is a 413 before any field is looked at, as for a library caller.
    assertImportSize(body);
    // Checked once, here, by the core's rules: the library takes the parsed import as it is.
    const input = validatedImport(Array.isArray(body) ? parseRequest(sessionListSchema, body) : parseRequest(importDocumentSchema, body));
    const counts = await memory.importSessions({ tenantId: c.get("tenantId"), userId }, input, { classify: classify === "true", ...(asUser === undefined ? {} : { asUser }) });
    return c.json(importResponseSchema.parse({ user_id: userId, ...counts }), 200);
  };

  const exportUser = async (c: Context<ServerEnv>) => {
    const userId = pathId(c, "user_id");
    parseRequest(emptyQuerySchema, queryOf(c), "query");
    const exported = await memory.exportUser({ tenantId: c.get("tenantId"), userId });
    return c.json(userMemoryDocumentSchema.parse(snakeKeys(exported)), 200);
  };

  return { searchMemory, importSessions, exportUser };
}
