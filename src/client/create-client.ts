import createClient, { type Client } from "openapi-fetch";
import type { components, operations, paths } from "./api-types.js";
import { errorOfAnswer, MemoryGraphApiError } from "./errors.js";
import { retryingFetch, type RetryOptions } from "./retrying-fetch.js";
import { readEvents } from "./sse.js";

type Schemas = components["schemas"];
export type TurnRequest = Schemas["TurnRequest"];
export type TurnResponse = Schemas["TurnResponse"];
export type TurnEvent = Schemas["TurnEvent"];
export type SessionMessages = Schemas["SessionMessages"];
export type UserMemory = Schemas["UserMemory"];
export type Forgotten = Schemas["Forgotten"];
export type MemorySearch = Schemas["MemorySearch"];
export type ImportRequest = Schemas["ImportRequest"];
export type Imported = Schemas["Imported"];
export type UserMemoryExport = Schemas["UserMemoryExport"];
export type SearchQuery = NonNullable<operations["searchMemory"]["parameters"]["query"]>;

/** How to reach the service. */
export interface ClientOptions extends RetryOptions {
  /** The service's URL, e.g. `https://memory.example.com` (no /v1). */
  baseUrl: string;
  /** The bearer key (`API_KEYS`); none for a service in open mode. */
  apiKey?: string;
  /** The fetch to send with (default: the global one); tests pass a Hono app's `fetch`. */
  fetch?: (request: Request) => Promise<Response>;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

export interface CallOptions {
  signal?: AbortSignal;
}

/** A typed client of the memory-graph HTTP API; `api` is the plain openapi-fetch client for anything else. */
export interface MemoryGraphClient {
  api: Client<paths>;
  /** One turn. Gives the turn a `message_id` when it has none, so that every retry is the same turn. A turn that ended in ERROR (HTTP 502) is returned, status ERROR. */
  createTurn(turn: TurnRequest, options?: CallOptions): Promise<TurnResponse>;
  /**
   * One turn, streamed: `token` events, then one `result` or `error` event. When the stream
   * breaks before its end, the turn is asked for again with the same `message_id` and its
   * stored result comes as the `result` event (no token is repeated).
   */
  streamTurn(turn: TurnRequest, options?: CallOptions): AsyncGenerator<TurnEvent>;
  sessionMessages(userId: string, sessionId: string, options?: CallOptions): Promise<SessionMessages>;
  forgetSession(userId: string, sessionId: string, options?: CallOptions): Promise<Forgotten>;
  userMemory(userId: string, options?: CallOptions): Promise<UserMemory>;
  forgetUser(userId: string, options?: CallOptions): Promise<Forgotten>;
  searchMemory(userId: string, query: SearchQuery, options?: CallOptions): Promise<MemorySearch>;
  importSessions(userId: string, sessions: ImportRequest, query?: { classify?: "true" | "false" }, options?: CallOptions): Promise<Imported>;
  exportUser(userId: string, options?: CallOptions): Promise<UserMemoryExport>;
  /** GET /readyz: whether the instance takes traffic, and every dependency's state when it does not. */
  ready(options?: CallOptions): Promise<{ ready: boolean; body: unknown }>;
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** The result of an answer, or its error as a MemoryGraphApiError (typed by the service's code). */
function resultOf<T>({ data, error, response }: Answer<T>): T {
  if (response.ok && data !== undefined) return data;
  throw errorOfAnswer(response, error ?? null);
}

/** Sends a request; a connection that broke (no answer at all) is a NETWORK_ERROR, an abort stays an abort. */
async function answerOf<T>(send: () => Promise<Answer<T>>): Promise<Answer<T>> {
  try {
    return await send();
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === "AbortError") throw cause;
    throw new MemoryGraphApiError("NETWORK_ERROR", `no answer from the service: ${String(cause)}`, { status: 0, cause });
  }
}

const call = async <T>(send: () => Promise<Answer<T>>): Promise<T> => resultOf(await answerOf(send));

/** Makes a client; docs/operations.md shows one in use. */
export function createMemoryGraphClient(options: ClientOptions): MemoryGraphClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const api = createClient<paths>({ baseUrl: options.baseUrl, headers, fetch: retryingFetch(send, options) });
  // Readiness is a question about this moment: asked once, never retried.
  const probe = createClient<paths>({ baseUrl: options.baseUrl, headers, fetch: send });
  const withId = (turn: TurnRequest): TurnRequest => (turn.message_id ? turn : { ...turn, message_id: crypto.randomUUID() });

  const createTurn = async (turn: TurnRequest, { signal }: CallOptions = {}): Promise<TurnResponse> => {
    const answer = await answerOf(() => api.POST("/v1/turns", { body: turn, signal }));
    // A turn that ended in ERROR answers 502 with the usual result: a result, not a failure of the request.
    const failed = answer.error as Partial<TurnResponse> | undefined;
    if (answer.response.status === 502 && failed?.status === "ERROR") return failed as TurnResponse;
    return resultOf(answer);
  };

  async function* streamTurn(raw: TurnRequest, { signal }: CallOptions = {}): AsyncGenerator<TurnEvent> {
    const turn = withId(raw);
    const body = await call(() => api.POST("/v1/turns/stream", { body: turn, signal, parseAs: "stream" }));
    try {
      for await (const { event, data } of readEvents(body ?? new ReadableStream())) {
        const parsed = { event, data: JSON.parse(data) as unknown } as TurnEvent;
        yield parsed;
        if (parsed.event !== "token") return;
      }
    } catch (cause) {
      if (signal?.aborted) throw cause;
    }
    // The stream broke before its last event: the turn runs on in the service; ask for its result with the same id.
    try {
      yield { event: "result", data: await createTurn(turn, { signal }) };
    } catch (cause) {
      throw new MemoryGraphApiError("STREAM_INTERRUPTED", `the stream of turn ${turn.message_id} broke and its result could not be fetched`, { status: 0, cause });
    }
  }

  const user = (userId: string) => ({ path: { user_id: userId } });
  return {
    api,
    createTurn: (turn, callOptions) => createTurn(withId(turn), callOptions),
    streamTurn,
    sessionMessages: (userId, sessionId, { signal } = {}) =>
      call(() => api.GET("/v1/sessions/{session_id}/messages", { params: { path: { session_id: sessionId }, query: { user_id: userId } }, signal })),
    forgetSession: (userId, sessionId, { signal } = {}) =>
      call(() => api.DELETE("/v1/sessions/{session_id}", { params: { path: { session_id: sessionId }, query: { user_id: userId } }, signal })),
    userMemory: (userId, { signal } = {}) => call(() => api.GET("/v1/users/{user_id}/memory", { params: user(userId), signal })),
    forgetUser: (userId, { signal } = {}) => call(() => api.DELETE("/v1/users/{user_id}", { params: user(userId), signal })),
    searchMemory: (userId, query, { signal } = {}) => call(() => api.GET("/v1/users/{user_id}/memory/search", { params: { ...user(userId), query }, signal })),
    importSessions: (userId, sessions, query = {}, { signal } = {}) =>
      call(() => api.POST("/v1/users/{user_id}/sessions/import", { params: { ...user(userId), query }, body: sessions, signal })),
    exportUser: (userId, { signal } = {}) => call(() => api.GET("/v1/users/{user_id}/export", { params: user(userId), signal })),
    ready: async ({ signal } = {}) => {
      const answer = await answerOf(() => probe.GET("/readyz", { signal }));
      if (answer.response.status === 503) return { ready: false, body: answer.error };
      return { ready: true, body: resultOf(answer) };
    },
  };
}
