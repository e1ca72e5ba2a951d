import type { MemoryGraph } from "../app/create-memory-graph.js";
import type { OpenStreams } from "./open-streams.js";
import type { TurnAdmission } from "./admission.js";

/** The per-request values middleware sets for the routes. */
export interface ServerEnv {
  Variables: {
    /** Set by Hono's request-id middleware (X-Request-Id). */
    requestId: string;
    /** The tenant of the API key (or `default` when no keys are configured). */
    tenantId: string;
    keyId: string;
  };
}

/** What the routes need from the server's options. */
export interface RouteDeps {
  memory: MemoryGraph;
  /** Largest request body (an import has its own). */
  bodyLimitBytes: number;
  /** Largest import body: an import carries many messages. */
  importBodyLimitBytes: number;
  /** The streaming answers in flight (a shutdown ends them with an `error` event). */
  streams: OpenStreams;
  /** How many turns run at once (see `TurnAdmission`). */
  admission: TurnAdmission;
  /** Serve the memory inspector's page and files. */
  inspector: boolean;
  /** True while shutting down: readiness fails. */
  isDraining: () => boolean;
  /** The OpenAPI document, as GET /openapi.json serves it. */
  openApiDocument: () => Promise<unknown>;
}
