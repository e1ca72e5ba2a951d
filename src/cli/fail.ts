import { MemoryGraphError, messageOf } from "../errors.js";
import { log, logLevel } from "../logger.js";

/**
 * Ends an entry point that cannot start: exactly one ERROR line with a stable `code`, the
 * `variable` to fix (when one is at fault) and the cause in `error`; the stack only at
 * LOG_LEVEL=debug. Exit code 1.
 */
export function exitOnStartFailure(event: string, error: unknown): never {
  const known = error instanceof MemoryGraphError ? error : undefined;
  const cause = known?.cause;
  const debug = logLevel() === "debug";
  log.error(event, {
    code: known?.code ?? "START_FAILED",
    variable: known?.field,
    error: messageOf(error),
    stack: debug && error instanceof Error ? error.stack : undefined,
    cause_stack: debug && cause instanceof Error ? cause.stack : undefined,
  });
  process.exit(1);
}

/** A start-up refusal because of one variable's value; `message` names the variable. */
export function configError(variable: string, message: string): MemoryGraphError {
  return new MemoryGraphError("CONFIG_INVALID", message, { kind: "system", field: variable });
}
