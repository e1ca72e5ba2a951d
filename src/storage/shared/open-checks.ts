import { MemoryGraphError, messageOf } from "../../errors.js";

/**
 * What every engine's open and probe share, so a wrong setting fails fast with one error naming
 * the variable to fix and the cause (never a password), instead of a hang or a driver's stack.
 * Loads no driver.
 */

/**
 * How long opening storage may wait for a server to answer before giving up: ample for a server
 * that is up (a connection takes milliseconds to a few hundred), short enough that a wrong URL
 * ends the start-up within seconds rather than after a platform's health-check timeout.
 */
export const CONNECT_TIMEOUT_MS = 3000;

/** `host:port/db` of a connection URL: enough to tell which server, without credentials. */
export function targetOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host || "localhost"}${parsed.pathname.length > 1 ? parsed.pathname : ""}`;
  } catch {
    return "(unparseable URL)";
  }
}

/** Removes the password of `url` (as written and decoded) from `text`. */
export function withoutPassword(text: string, url: string): string {
  let password: string;
  try {
    password = new URL(url).password;
  } catch {
    return text;
  }
  if (!password) return text;
  let out = text.split(password).join("***");
  try {
    const decoded = decodeURIComponent(password);
    if (decoded) out = out.split(decoded).join("***");
  } catch {
    // a password with a stray % only appears as written
  }
  return out;
}

/** The cause of a connection that timed out: the server accepted (or never did) but did not answer. */
export function noAnswer(server: string, ms: number, cause?: unknown): Error {
  return new Error(`no answer within ${ms} ms (is it a ${server} server, reachable from here?)`, { cause });
}

/**
 * `work`, or a rejection with the error `expire()` returns once `ms` pass (`expire` may also drop a
 * half-open connection). The call itself is left to finish or fail on its own.
 */
export async function withDeadline<T>(work: Promise<T>, ms: number, expire: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(expire()), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** STORAGE_UNREACHABLE: the server behind `variable` could not be connected to. */
export function unreachable(server: string, variable: string, url: string, cause: unknown): MemoryGraphError {
  const why = withoutPassword(messageOf(cause), url);
  return new MemoryGraphError("STORAGE_UNREACHABLE", `${variable}: cannot connect to ${server} at ${targetOf(url)}: ${why}`, {
    kind: "system",
    field: variable,
    cause,
  });
}

/** STORAGE_SETUP_FAILED: connected, but preparing the schema failed. */
export function setupFailed(server: string, variable: string, url: string, cause: unknown): MemoryGraphError {
  const why = withoutPassword(messageOf(cause), url);
  return new MemoryGraphError("STORAGE_SETUP_FAILED", `${variable}: cannot prepare ${server} at ${targetOf(url)}: ${why}`, {
    kind: "system",
    field: variable,
    cause,
  });
}
/** `value`, or CONFIG_INVALID naming the variable a backend needs. */
export function required(value: string | undefined, name: string, backend: string): string {
  if (value) return value;
  throw new MemoryGraphError("CONFIG_INVALID", `${name}: required by MEMORY_BACKEND=${backend}`, { kind: "system", field: name });
}
