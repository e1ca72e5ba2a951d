/** Who is at fault: the caller (`user`), this system (`system`) or a provider we call (`upstream`). */
export type ErrorKind = "user" | "system" | "upstream";

/**
 * The one error class of memory-graph. `code` is a stable UPPER_SNAKE identifier callers may
 * branch on; `field` names the input field at fault, when there is one.
 */
export class MemoryGraphError extends Error {
  readonly code: string;
  readonly kind: ErrorKind;
  readonly field: string | undefined;

  constructor(code: string, message: string, options: { kind?: ErrorKind; field?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "MemoryGraphError";
    this.code = code;
    this.kind = options.kind ?? "user";
    this.field = options.field;
  }
}

/** Shorthand for a caller's mistake in one field. */
export function invalidInput(field: string, message: string, code = "INVALID_INPUT"): MemoryGraphError {
  return new MemoryGraphError(code, `${field}: ${message}`, { kind: "user", field });
}

/** The message of any thrown value, for logs and error records. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === "string" ? error : JSON.stringify(error);
}
