import type { Context, Hono, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { validator } from "hono/validator";
import type { z, ZodObject, ZodType } from "zod";
import { invalidInput, MemoryGraphError } from "../errors.js";
import { assertText, isCleanText, parseJsonInput } from "../json-bounds.js";
import type { RouteDeps, ServerEnv } from "./context.js";

/**
 * One definition per route: its method and path, what the OpenAPI document says of it, how each
 * part of a request is checked, and its handler. The server registers the definitions (with
 * `registerRoutes`) and openapi.ts documents the same ones, so a route cannot be served one way
 * and documented another. Paths are in Hono's syntax (`:name`). Each part of a request is read
 * and checked here too: the body (`readJsonBody`), path ids and the query, decoded strictly
 * (`pathParams`, `queryOf`), and any part against its schema (`parseRequest`).
 */

export type Status = 200 | 400 | 401 | 404 | 405 | 409 | 413 | 415 | 429 | 500 | 502 | 503;

/** One answer of a route: a JSON body, or (for a stream) server-sent events, and the headers it may carry. */
export interface ResponseSpec {
  /** Set on an answer many routes share: the document holds it once, as a component. */
  id?: string;
  description: string;
  json?: ZodType;
  events?: ZodType;
  /** A text answer of this media type (the inspector's page and files). */
  text?: string;
  /** Response headers beyond `X-Request-Id` (which every answer carries). */
  headers?: ZodObject;
}

/**
 * A part of the request (path, query or body): the schema the document shows, and how the part is
 * read and checked into what the handler takes; `parse` throws a user error naming the field.
 */
export interface RequestPart<T, S extends ZodType = ZodType> {
  schema: S;
  parse(c: Context<ServerEnv>, deps: RouteDeps): T | Promise<T>;
}

/**
 * The body of a route: JSON read within a size limit (default: the server's body limit), then
 * `parse`d from the JSON value into what the handler takes.
 */
export interface BodyPart<T> {
  schema: ZodType;
  parse(value: unknown, c: Context<ServerEnv>, deps: RouteDeps): T | Promise<T>;
  limitBytes?(deps: RouteDeps): number;
}

/** What the handler takes: every part of the request, checked. */
export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

export interface RouteSpec<P = undefined, Q = undefined, B = undefined> {
  method: "get" | "post" | "patch" | "delete";
  path: string;
  summary: string;
  description?: string;
  tag: "turns" | "memory" | "health";
  params?: RequestPart<P, ZodObject>;
  query?: RequestPart<Q, ZodObject>;
  body?: BodyPart<B>;
  /** Every status the route answers, other than what every route under API_PREFIX may answer. */
  responses: Partial<Record<Status, ResponseSpec>>;
  handle(c: Context<ServerEnv>, input: RouteInput<P, Q, B>, deps: RouteDeps): Response | Promise<Response>;
}

/** A route of any input (the table and the document read every route alike). */
export type AnyRoute = RouteSpec<unknown, unknown, unknown>;

/** A route definition, its handler's input typed by its parts. */
export function defineRoute<P = undefined, Q = undefined, B = undefined>(route: RouteSpec<P, Q, B>): RouteSpec<P, Q, B> {
  return route;
}

/** Path ids (`schema`'s keys), decoded strictly and checked by `schema`: a bad one is INVALID_ID under its name. */
export function pathIds<S extends ZodObject>(schema: S): RequestPart<z.output<S>, S> {
  return { schema, parse: (c) => pathParams(c, schema) };
}

/** The query, decoded strictly and checked by `schema` (strict: an unknown parameter is UNKNOWN_FIELD). */
export function queryParams<S extends ZodObject>(schema: S): RequestPart<z.output<S>, S> {
  return { schema, parse: (c) => parseRequest(schema, queryOf(c), "query") };
}

/** A JSON body checked by `schema` (see `readJsonBody` for what is refused before the schema runs). */
export function jsonBody<S extends ZodType>(schema: S): BodyPart<z.output<S>> {
  return { schema, parse: (value) => parseRequest(schema, value) };
}

/**
 * Registers every route on `app`: the path and query are checked first (Hono's `validator`), then
 * a body is held to its limit (Hono's `bodyLimit`), read (`readJsonBody`) and checked, and the
 * handler gets the parts.
 */
export function registerRoutes(app: Hono<ServerEnv>, routes: Readonly<Record<string, AnyRoute>>, deps: RouteDeps): void {
  for (const route of Object.values(routes)) app.on([route.method.toUpperCase()], [route.path], ...chainOf(route, deps));
}

function chainOf(route: AnyRoute, deps: RouteDeps): MiddlewareHandler<ServerEnv>[] {
  const { params, query, body } = route;
  const chain: MiddlewareHandler<ServerEnv>[] = [];
  // Hono's own reading of the path and query is lenient; each part reads the raw URL itself. Every
  // route holds its whole URL to the text rule, whether or not it reads the part: a NUL or a lone
  // surrogate never reaches a handler, a lookup or an answer (a 404 echoing it).
  chain.push(
    validator("param", (_lenient, c: Context<ServerEnv>) => {
      const ids = urlParams(c);
      return params ? params.parse(c, deps) : ids;
    }),
  );
  chain.push(validator("query", (_lenient, c: Context<ServerEnv>) => (query ? query.parse(c, deps) : queryOf(c))));
  if (body) chain.push(limitBody(body.limitBytes?.(deps) ?? deps.bodyLimitBytes));
  chain.push(async (c) => {
    const valid = c.req.valid.bind(c.req) as (target: "param" | "query") => unknown;
    const input = { params: params ? valid("param") : undefined, query: query ? valid("query") : undefined, body: body ? await body.parse(await readJsonBody(c), c, deps) : undefined };
    return route.handle(c, input, deps);
  });
  return chain;
}

/**
 * Hono's body limit (a declared Content-Length over it is refused before anything is read; a body
 * without one is counted as it arrives) answering 413 PAYLOAD_TOO_LARGE. A body that breaks off
 * while the limit counts it is the client's doing: 400 BODY_INCOMPLETE, as when the handler reads it.
 */
function limitBody(limitBytes: number): MiddlewareHandler<ServerEnv> {
  const limit = bodyLimit({
    maxSize: limitBytes,
    onError: () => {
      throw new MemoryGraphError("PAYLOAD_TOO_LARGE", `the body is over the limit of ${limitBytes} bytes`, { kind: "user" });
    },
  });
  return async (c, next) => {
    try {
      // An error of the route after it (next) is answered there, by the app's error handler: what arrives here is the limit's own.
      return await limit(c, next);
    } catch (error) {
      if (error instanceof MemoryGraphError) throw error;
      throw new MemoryGraphError("BODY_INCOMPLETE", "the body ended before it was whole (the client went away?)", { kind: "user", cause: error });
    }
  };
}

/**
 * Reads a request's JSON body; its size was held to the route's limit before (`limitBody`). A content type other than application/json is 415; bytes that are not UTF-8 or
 * text that is not JSON is 400, and so is JSON over the structure bound, breaking the text rule or
 * holding a key twice in one object (`parseJsonInput`), before anything else reads it; a body cut short (the client went away, or
 * sent less than its Content-Length) is 400 BODY_INCOMPLETE, logged as the caller's mistake.
 * Never throws anything but a user `MemoryGraphError`.
 */
async function readJsonBody(c: Context): Promise<unknown> {
  const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") {
    throw new MemoryGraphError("UNSUPPORTED_MEDIA_TYPE", "the body must be application/json", { kind: "user" });
  }
  const bytes = await c.req.arrayBuffer().catch((error: unknown) => {
    // The client went away mid-body (or sent less than its Content-Length): its mistake, not ours.
    throw new MemoryGraphError("BODY_INCOMPLETE", "the body ended before it was whole (the client went away?)", { kind: "user", cause: error });
  });
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalidJson("the body is not UTF-8 text");
  }
  if (text.trim() === "") throw invalidJson("the body is empty; send a JSON object");
  return parseJsonInput(text);
}

function invalidJson(message: string): MemoryGraphError {
  return new MemoryGraphError("INVALID_JSON", message, { kind: "user" });
}

/**
 * Parses `schema` or throws a user error naming the first bad field (snake_case, dotted): an
 * unknown one is UNKNOWN_FIELD, a bad one `invalid` (INVALID_INPUT, or INVALID_ID for a path id).
 */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown, fallbackField = "body", invalid: "INVALID_INPUT" | "INVALID_ID" = "INVALID_INPUT"): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.code === "unrecognized_keys" ? [...issue.path, issue.keys[0] ?? ""] : (issue?.path ?? []);
  const field = path.map(String).join(".") || fallbackField;
  const code = issue?.code === "unrecognized_keys" ? "UNKNOWN_FIELD" : invalid;
  const detail = issue?.code === "unrecognized_keys" ? `unknown field${issue.keys.length > 1 ? "s" : ""} ${issue.keys.join(", ")}` : (issue?.message ?? "invalid");
  throw new MemoryGraphError(code, `${field}: ${detail}`, { kind: "user", field });
}

/**
 * Ids from the URL, decoded strictly. Hono decodes parameters leniently: an escape that is not
 * UTF-8 (`%ED%A0%80`, a lone surrogate written out as if it were a character) is kept as typed,
 * so `/v1/users/a%ED%A0%80b` would name the user "a%ED%A0%80b", whom `a%25ED%25A0%2580b` names
 * too. Here such an escape is the caller's mistake, reported under the parameter's field.
 */

function decodeStrictly(field: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw invalidInput(field, "must be percent-encoded UTF-8 of well-formed Unicode", "INVALID_ID");
  }
}

/**
 * Every path parameter of the matched route, by name, decoded strictly; one that breaks the text
 * rule (NUL) is INVALID_ID under its name, whatever the route makes of it.
 */
export function urlParams(c: Context): Record<string, string> {
  const names = c.req.routePath.split("/");
  // Routing splits the path at the same slashes: escapes such as %2F are never decoded before it.
  const segments = new URL(c.req.url).pathname.split("/");
  const params: Record<string, string> = {};
  names.forEach((name, index) => {
    const segment = segments[index];
    if (!name.startsWith(":") || segment === undefined) return;
    const value = decodeStrictly(name.slice(1), segment);
    if (!isCleanText(value)) throw invalidInput(name.slice(1), "must not contain NUL (U+0000)", "INVALID_ID");
    params[name.slice(1)] = value;
  });
  return params;
}

/**
 * The path parameters of the matched route that `schema` names, each decoded strictly
 * (`urlParams`) and checked by `schema`; a bad one is INVALID_ID under its name.
 */
export function pathParams<S extends ZodObject>(c: Context, schema: S): z.output<S> {
  const params = urlParams(c);
  const raw = Object.fromEntries(
    Object.keys(schema.shape).map((name) => {
      const value = params[name];
      if (value === undefined) throw new Error(`route ${c.req.routePath} has no parameter :${name}`);
      return [name, value];
    }),
  );
  return parseRequest(schema, raw, "path", "INVALID_ID");
}

/**
 * The query parameters, decoded strictly (`+` is a space); the first of repeated names wins, as in
 * Hono; a value with NUL is INVALID_TEXT, as in a body. Own properties only, so a name such as `__proto__` is an unknown field, not a prototype.
 */
export function queryOf(c: Context): Record<string, string> {
  const params = new Map<string, string>();
  for (const pair of new URL(c.req.url).search.slice(1).split("&")) {
    if (pair === "") continue;
    const equals = pair.indexOf("=");
    const [rawName, rawValue] = equals < 0 ? [pair, ""] : [pair.slice(0, equals), pair.slice(equals + 1)];
    const name = decodeStrictly("query", rawName.replace(/\+/g, " "));
    const value = assertText(decodeStrictly(name, rawValue.replace(/\+/g, " ")), name);
    if (name !== "" && !params.has(name)) params.set(name, value);
  }
  return Object.fromEntries(params);
}
