/**
 * `memory-graph/client`: a typed client of the HTTP service, made from its OpenAPI document
 * (openapi-typescript types, openapi-fetch requests). It loads none of the graph: only fetch.
 */
export {
  createMemoryGraphClient,
  type CallOptions,
  type ClientOptions,
  type Forgotten,
  type ImportRequest,
  type Imported,
  type MemoryGraphClient,
  type MemorySearch,
  type SearchQuery,
  type SessionMessages,
  type TurnEvent,
  type TurnRequest,
  type TurnResponse,
  type UserMemory,
  type UserMemoryExport,
} from "../client/create-client.js";
export { MemoryGraphApiError, type ApiErrorCode } from "../client/errors.js";
export type { RetryOptions } from "../client/retrying-fetch.js";
export type { components, operations, paths } from "../client/api-types.js";
