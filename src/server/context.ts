import type { MemoryGraph } from "../app/create-memory-graph.js";
import type { OpenStreams } from "./open-streams.js";

/** The per-request values middleware sets for the routes. */
export interface ServerEnv {
  Variables: {
    requestId: string;
    /** The tenant of the API key (or `default` when no keys are configured). */
    tenantId: string;
    keyId: string;
  };
}

/** What the routes need from the server's options. */
export interface RouteDeps {
  memory: MemoryGraph;
  bodyLimitBytes: number;
  /** The streaming answers in flight (a shutdown ends them with an `error` event). */
  streams: OpenStreams;
}
