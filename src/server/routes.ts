import { deleteUserEntity, deleteUserRelation, getUserEntity, listUserEntities } from "./entity-routes.js";
import { restoreFact } from "./fact-restore-route.js";
import { health, openApi, ready } from "./health-routes.js";
import { inspector, inspectorAsset } from "./inspector.js";
import { getTurnContext, layerItemRoutes, searchItems } from "./item-routes.js";
import { exportUser, importSessions, searchMemory } from "./memory-api-routes.js";
import { forgetSession, forgetUser, getUserMemory, listSessionMessages } from "./memory-routes.js";
import type { AnyRoute } from "./route.js";
import { listUserSessions } from "./session-list-routes.js";
import { createTurn, streamTurn } from "./turn-routes.js";
import { getUser, listUsers } from "./user-list-routes.js";

export { API_PREFIX, REPLAYED_HEADER, responsesOf } from "./responses.js";
export type { Status } from "./route.js";

/**
 * Every route of the HTTP service, by operation id, in the document's order. Each is one
 * definition (route.ts): the server registers exactly these, and the OpenAPI document is built
 * from the same definitions, with the schemas the routes check requests by and answer with.
 */
export const ROUTES = {
  createTurn,
  streamTurn,
  listSessionMessages,
  forgetSession,
  getUserMemory,
  listUsers,
  getUser,
  listUserSessions,
  listUserEntities,
  getUserEntity,
  deleteUserEntity,
  deleteUserRelation,
  forgetUser,
  searchMemory,
  importSessions,
  exportUser,
  ...layerItemRoutes,
  restoreFact,
  searchItems,
  getTurnContext,
  inspector,
  inspectorAsset,
  health,
  ready,
  openApi,
} satisfies Record<string, AnyRoute>;

export type OperationId = keyof typeof ROUTES;
