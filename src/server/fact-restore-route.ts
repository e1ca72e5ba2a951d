import { snakeKeys } from "./case.js";
import { FACTS } from "./item-layers.js";
import { factPathSchema, factResponseSchema } from "./item-schemas.js";
import { emptyQuerySchema } from "./request-schemas.js";
import { error } from "./responses.js";
import { defineRoute, pathIds, queryParams } from "./route.js";

/** POST /v1/users/{user_id}/facts/{fact_id}/restore: the inspector's Undo for a fact's delete or edit. */
export const restoreFact = defineRoute({
  method: "post",
  path: `${FACTS.path}/restore`,
  tag: "memory",
  summary: "Undo a fact's delete (within a minute) or edit",
  description:
    "A fact deleted in the last minute comes back, with the messages, events and summaries its delete cut (the session windows keep `[removed]`); " +
    "a version an edit replaced becomes current again, and the edit's version goes. Until then a deleted value is out of everything the model reads.",
  params: pathIds(factPathSchema),
  query: queryParams(emptyQuerySchema),
  responses: {
    200: { description: "The fact as it now reads.", json: factResponseSchema },
    404: error("FACT_NOT_FOUND: no such fact, or its delete is more than a minute old."),
    409: error("FACT_STALE: the version that replaced this one has been changed since; nothing was written."),
  },
  handle: async (c, { params: { user_id: userId, fact_id: factId } }, { memory }) => {
    const fact = await memory.restoreFact({ tenantId: c.get("tenantId"), userId }, factId);
    return c.json({ user_id: userId, fact: snakeKeys(fact) as never }, 200);
  },
});
