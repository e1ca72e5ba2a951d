import { z } from "zod";
import { log } from "../logger.js";
import { snakeKeys } from "./case.js";
import { errorBodySchema } from "./http-error.js";
import { healthResponseSchema, notReadyResponseSchema, readyResponseSchema } from "./response-schemas.js";
import { defineRoute } from "./route.js";

/** Probes and the API document: no key needed. */

/** How long /readyz waits for each dependency's ping (they run at once): under the probes' usual one second. */
const READY_PING_MS = 800;

export const health = defineRoute({
  method: "get",
  path: "/healthz",
  tag: "health",
  summary: "Liveness",
  responses: { 200: { description: "The process serves requests.", json: healthResponseSchema } },
  handle: (c) => c.json({ status: "ok" }, 200),
});

export const ready = defineRoute({
  method: "get",
  path: "/readyz",
  tag: "health",
  summary: "Readiness: storage answers and the service is not draining",
  description:
    "Answers within a second, always: every storage dependency (session_store, memory_store) is pinged at once, each for at most 800 ms. " +
    "Cloud Run and load balancers read it; GET /healthz is liveness only.",
  responses: {
    200: { description: "Ready for traffic: every dependency answered.", json: readyResponseSchema },
    503: {
      description:
        "DRAINING (shutting down), or STORAGE_UNREACHABLE: the message names each dependency that did not answer, and `dependencies` gives every one's state.",
      json: z.union([errorBodySchema, notReadyResponseSchema]),
    },
  },
  handle: async (c, _input, { memory, isDraining }) => {
    if (isDraining()) return c.json({ error: { code: "DRAINING", message: "shutting down" } }, 503);
    // Every dependency is pinged at once, each given READY_PING_MS: the answer comes within a second.
    const dependencies = await memory.checkHealth(READY_PING_MS);
    const failing = dependencies.filter((dependency) => !dependency.ok);
    if (failing.length === 0) return c.json({ status: "ready" }, 200);
    // Losing and regaining a dependency is logged once each (dependency.lost/recovered), not per probe.
    log.debug("http.not_ready", { request_id: c.get("requestId"), failing: failing.map((d) => d.name) });
    const message = `not answering: ${failing.map((d) => `${d.name} (${d.engine})`).join(", ")}`;
    return c.json({ error: { code: "STORAGE_UNREACHABLE", message }, dependencies: dependencies.map((d) => snakeKeys(d)) }, 503);
  },
});

export const openApi = defineRoute({
  method: "get",
  path: "/openapi.json",
  tag: "health",
  summary: "This document",
  responses: { 200: { description: "The OpenAPI 3.1 document of this service.", json: z.record(z.string(), z.unknown()) } },
  handle: async (c, _input, deps) => c.json(await deps.openApiDocument(), 200),
});
