/** Who is at fault: the caller (`user`), this system (`system`) or a provider we call (`upstream`). */
export type ErrorKind = "user" | "system" | "upstream";

/** The storage a turn depends on: the checkpointer (session window) and the long-term store. */
export type StorageDependency = "session_store" | "memory_store";

/**
 * Every error code of memory-graph, with the kind of fault it always is. A code is stable: callers
 * (and the HTTP service, which maps kind and code to a status) branch on it.
 */
export const ERROR_CODES = {
  // The caller's input.
  INVALID_INPUT: "user",
  INVALID_ID: "user",
  INVALID_JSON: "user",
  DUPLICATE_KEY: "user",
  INPUT_TOO_COMPLEX: "user",
  INVALID_TEXT: "user",
  UNKNOWN_FIELD: "user",
  PROMPT_TOO_LONG: "user",
  UNKNOWN_PARENT: "user",
  UNKNOWN_REFERENCE: "user",
  IMPORT_USER_MISMATCH: "user",
  REGENERATE_TEXT_MISMATCH: "user",
  MESSAGE_ID_CONFLICT: "user",
  IMPORT_TOO_LARGE: "user",
  THREAD_SCOPE_MISMATCH: "user",
  INVALID_FILTER: "user",
  INVALID_NAMESPACE: "user",
  INVALID_KEY: "user",
  INVALID_VALUE: "user",
  NAMESPACE_TENANT_REQUIRED: "user",
  INVALID_EVENT_DATE: "user",
  USAGE: "user",
  GC_UNSUPPORTED: "user",
  // The caller's request, as the HTTP service sees it.
  UNAUTHORIZED: "user",
  RATE_LIMITED: "user",
  PAYLOAD_TOO_LARGE: "user",
  BODY_INCOMPLETE: "user",
  UNSUPPORTED_MEDIA_TYPE: "user",
  METHOD_NOT_ALLOWED: "user",
  NOT_FOUND: "user",
  SESSION_NOT_FOUND: "user",
  USER_NOT_FOUND: "user",
  FACT_NOT_FOUND: "user",
  EVENT_NOT_FOUND: "user",
  MESSAGE_NOT_FOUND: "user",
  SUMMARY_NOT_FOUND: "user",
  TURN_CONTEXT_NOT_FOUND: "user",
  // An edit of a version that is no longer current: read it again.
  FACT_STALE: "user",
  // Faults of this system: configuration, storage, state it should never be in.
  INTERNAL: "system",
  CONFIG_INVALID: "system",
  BACKEND_UNKNOWN: "system",
  LISTEN_FAILED: "system",
  GRAPH_CLOSED: "system",
  STORE_CLOSED: "system",
  // This instance runs its most turns at once and none freed up in time (HTTP 503 with Retry-After): nothing ran.
  OVERLOADED: "system",
  CHECKPOINTER_CLOSED: "system",
  STORE_MISSING: "system",
  STORE_CAPABILITY_MISSING: "system",
  STORAGE_UNREACHABLE: "system",
  STORAGE_SETUP_FAILED: "system",
  SQLITE_PATH_UNUSABLE: "system",
  REDIS_UNAVAILABLE: "system",
  RATE_LIMIT_STORE_FAILED: "system",
  TURN_LOCK_TIMEOUT: "system",
  CHECKPOINT_CONFIG_INVALID: "system",
  INVALID_RETENTION_POLICY: "system",
  INVALID_WINDOW_LIMITS: "system",
  UNKNOWN_MESSAGE_ROLE: "system",
  THREAD_CYCLE: "system",
  TURN_MISSING: "system",
  INPUT_MISSING: "system",
  TURN_MESSAGE_MISSING: "system",
  STREAM_EMPTY: "system",
  VECTOR_DIMENSION_MISMATCH: "system",
  DRAINING: "system",
  // A provider we call (the model) failed or answered nonsense.
  CLASSIFIER_BAD_OUTPUT: "upstream",
  SUMMARIZER_EMPTY_OUTPUT: "upstream",
  // A storage dependency does not answer (HTTP 503 with Retry-After; `dependency` names it): nothing was stored.
  SESSION_STORE_UNAVAILABLE: "upstream",
  MEMORY_STORE_UNAVAILABLE: "upstream",
} as const satisfies Record<string, ErrorKind>;

/** One of the stable error codes of {@link ERROR_CODES}. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** The kind of fault `C` is (for a union of codes, any of theirs). */
export type KindOf<C extends ErrorCode> = (typeof ERROR_CODES)[C];

/** How an error is made: its kind is required (and must be its code's), the field and cause optional. */
export interface ErrorOptions<C extends ErrorCode> {
  kind: KindOf<C>;
  field?: string;
  cause?: unknown;
  /** For SESSION_STORE_UNAVAILABLE and MEMORY_STORE_UNAVAILABLE: the dependency that does not answer, and when to try again. */
  dependency?: StorageDependency;
  retryAfterSeconds?: number;
}

/**
 * The one error class of memory-graph. `code` is a stable UPPER_SNAKE identifier from
 * {@link ERROR_CODES} that callers may branch on; `kind` says whose fault it is; `field` names the
 * input field at fault, when there is one; a storage dependency that does not answer is named by
 * `dependency`, with `retryAfterSeconds`.
 */
export class MemoryGraphError<C extends ErrorCode = ErrorCode> extends Error {
  readonly code: C;
  readonly kind: ErrorKind;
  readonly field: string | undefined;
  readonly dependency: StorageDependency | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: C, message: string, options: ErrorOptions<C>) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "MemoryGraphError";
    this.code = code;
    this.kind = options.kind;
    this.field = options.field;
    this.dependency = options.dependency;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** Shorthand for a caller's mistake in one field. */
export function invalidInput(field: string, message: string, code: "INVALID_INPUT" | "INVALID_ID" = "INVALID_INPUT"): MemoryGraphError {
  return new MemoryGraphError(code, `${field}: ${message}`, { kind: "user", field });
}

/** The message of any thrown value, for logs and error records. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : JSON.stringify(error);
}
