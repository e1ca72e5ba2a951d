import { withDeadline } from "../storage/shared/open-checks.js";

/**
 * Telling a storage outage (the server does not answer, the connection is gone, the file cannot be
 * written) from any other error, and bounding each storage call in time. An outage is what the
 * degraded modes answer; any other error (a bug, bad data) stays what it is.
 */

/** A storage call that did not settle within the storage timeout. */
export class StorageTimeoutError extends Error {
  readonly code = "STORAGE_TIMEOUT";
  constructor(readonly ms: number) {
    super(`storage did not answer within ${ms} ms`);
    this.name = "StorageTimeoutError";
  }
}

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "STORAGE_TIMEOUT",
  "REDIS_UNAVAILABLE",
]);
/** SQLite: the file cannot be read or written (read-only, I/O error, disk full, gone or not a database). */
const SQLITE_CODES = /^SQLITE_(READONLY|IOERR|CANTOPEN|FULL|NOTADB|CORRUPT)/;
/** Postgres SQLSTATEs: connection exceptions (08…), shutdown or not yet accepting (57P01–57P03), too many connections. */
const POSTGRES_CODES = /^(08...|57P0[123]|53300)$/;
/** node-redis error classes for a closed, offline or reconnecting client. */
const REDIS_NAMES = new Set([
  "ClientClosedError",
  "ClientOfflineError",
  "SocketClosedUnexpectedlyError",
  "ConnectionTimeoutError",
  "ReconnectStrategyError",
  "SocketTimeoutError",
]);
const MESSAGES =
  /connection terminated|timeout exceeded when trying to connect|connection error|the client is closed|client is offline|socket closed unexpectedly|terminating connection|connection refused|cannot use a pool after calling end/i;

/** Whether `error` (or an error it wraps) says the storage behind a call is unreachable or unusable. */
export function isStorageFailure(error: unknown, depth = 0): boolean {
  if (depth > 4 || error === null || typeof error !== "object") return false;
  const { code, name, cause, errors } = error as { code?: unknown; name?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === "string" && (NETWORK_CODES.has(code) || SQLITE_CODES.test(code) || POSTGRES_CODES.test(code))) return true;
  if (typeof name === "string" && REDIS_NAMES.has(name)) return true;
  if (error instanceof Error && MESSAGES.test(error.message)) return true;
  if (Array.isArray(errors) && errors.some((inner) => isStorageFailure(inner, depth + 1))) return true;
  return cause !== undefined && isStorageFailure(cause, depth + 1);
}

/** `work`, or a StorageTimeoutError once `ms` pass (the call itself is left to finish or fail on its own). */
export function withinStorageTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  return withDeadline(work, ms, () => new StorageTimeoutError(ms));
}
