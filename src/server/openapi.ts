import { z } from "zod";
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponseObject } from "zod-openapi";
import { isApiRoute, responsesOf } from "./responses.js";
import type { AnyRoute, ResponseSpec } from "./route.js";
import { ROUTES } from "./routes.js";

/** The OpenAPI document of the service, built from the route definitions (the same schemas the routes check requests by). */
export type OpenApiDocument = ReturnType<typeof createDocument>;

const requestId = z.object({
  "X-Request-Id": z.string().meta({
    header: { id: "RequestId", description: "The request's id (a sane X-Request-Id sent with it, else a new one), as the logs name it." },
  }),
});

const DESCRIPTION = [
  "Conversation memory for a chatbot. JSON over HTTP, snake_case; every request schema is strict (an unknown field is a 400).",
  "Routes under /v1 take an API key as `Authorization: Bearer <key>`; the key decides the tenant. A service started without API_KEYS",
  "serves one tenant, `default`, with no key. Every error answer has the body `{\"error\": {\"code\", \"message\", \"field\"}}`.",
].join(" ");

/** `/v1/sessions/:session_id` → `/v1/sessions/{session_id}`. */
export function openApiPath(honoPath: string): string {
  return honoPath.replace(/:(\w+)/g, "{$1}");
}

/** One response object per spec, so that a shared one (with an id) becomes one component. */
function responseOf(spec: ResponseSpec, made: WeakMap<ResponseSpec, ZodOpenApiResponseObject>): ZodOpenApiResponseObject {
  const known = made.get(spec);
  if (known) return known;
  const headers = spec.headers ? requestId.extend(spec.headers.shape) : requestId;
  const content = spec.events
    ? { "text/event-stream": { schema: spec.events } }
    : spec.json
      ? { "application/json": { schema: spec.json } }
      : spec.text
        ? { [spec.text]: { schema: z.string() } }
        : undefined;
  const response: ZodOpenApiResponseObject = { ...(spec.id ? { id: spec.id } : {}), description: spec.description, headers, ...(content ? { content } : {}) };
  made.set(spec, response);
  return response;
}

function operationOf(operationId: string, route: AnyRoute, made: WeakMap<ResponseSpec, ZodOpenApiResponseObject>): ZodOpenApiOperationObject {
  const { params, query, body } = route;
  const responses = Object.fromEntries(Object.entries(responsesOf(route)).map(([status, spec]) => [status, responseOf(spec, made)]));
  return {
    operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [route.tag],
    security: isApiRoute(route) ? [{ bearerAuth: [] }] : [],
    ...(params || query ? { requestParams: { ...(params ? { path: params.schema } : {}), ...(query ? { query: query.schema } : {}) } } : {}),
    ...(body ? { requestBody: { required: true, content: { "application/json": { schema: body.schema } } } } : {}),
    responses,
  };
}

/** Builds the document (deterministic: the same routes give the same JSON). */
export function buildOpenApiDocument(): OpenApiDocument {
  const paths: ZodOpenApiPathsObject = {};
  const made = new WeakMap<ResponseSpec, ZodOpenApiResponseObject>();
  for (const [operationId, route] of Object.entries(ROUTES)) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method]: operationOf(operationId, route, made) };
  }
  return createDocument({
    openapi: "3.1.0",
    info: { title: "memory-graph", version: "1", description: DESCRIPTION },
    tags: [
      { name: "turns", description: "One user message in, one answer out, memory kept." },
      { name: "memory", description: "Reading and forgetting what is remembered." },
      { name: "health", description: "Probes and this document; no key needed." },
    ],
    security: [{ bearerAuth: [] }],
    components: { securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", description: "An API key of API_KEYS; it names the tenant." } } },
    paths,
  });
}

let cached: OpenApiDocument | null = null;

/** The document, built once. */
export function openApiDocument(): OpenApiDocument {
  cached ??= buildOpenApiDocument();
  return cached;
}

/** The document as `npm run openapi` writes it to openapi.json. */
export function openApiJson(): string {
  return `${JSON.stringify(openApiDocument(), null, 2)}\n`;
}
