import { AsyncLocalStorage } from "node:async_hooks";
import { traceFields } from "./telemetry.js";

/**
 * Logging. Our code calls `log.info(event, fields)`; where the line goes is the host's choice:
 * - by default, structured JSON to stdout, one object per line, with the `severity` field Cloud
 *   Logging reads, at the level of `setLogLevel`: the service and the CLIs pass `LOG_LEVEL` (default
 *   info); imported as a library it stays quiet (`silent`) unless `LOG_LEVEL` or `setLogLevel` names a level;
 * - `setLogger(logger)` sends everything to the host's logger instead (or `setLogger(false)`: nothing);
 * - `withLogger(logger, work)` sends what `work` logs, its async continuations included, to
 *   `logger`, whatever the process-wide one is: each memory graph runs its calls in its own.
 */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

export type LogFields = Record<string, unknown>;

/**
 * A host's logger. Each call gets the fields first (with `event` among them) and the event name as
 * the message, so pino and bunyan loggers (and `console`) fit as they are.
 */
export interface Logger {
  debug(fields: LogFields, event: string): void;
  info(fields: LogFields, event: string): void;
  warn(fields: LogFields, event: string): void;
  error(fields: LogFields, event: string): void;
}

/** What a host may pass where a logger is asked for: a logger, a level of our JSON logger, or false for none. */
export type LoggerOption = Logger | LogLevel | false;

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SEVERITY: Record<Exclude<LogLevel, "silent">, string> = {
  debug: "DEBUG",
  info: "INFO",
  warn: "WARNING",
  error: "ERROR",
};

const stdout = (line: string) => void process.stdout.write(`${line}\n`);

/** Our JSON lines logger: drops what is under `level()`, hands each line to `write()`. */
function json(level: () => LogLevel, write: () => (line: string) => void): Logger {
  const at = (name: Exclude<LogLevel, "silent">) => (fields: LogFields) => {
    if (RANK[name] < RANK[level()]) return;
    write()(JSON.stringify({ severity: SEVERITY[name], time: new Date().toISOString(), ...fields }));
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** Structured JSON lines at `level` and above (default info), to stdout unless `write` says otherwise. */
export function jsonLogger(options: { level?: LogLevel; write?: (line: string) => void } = {}): Logger {
  const { level = "info", write = stdout } = options;
  return json(
    () => level,
    () => write,
  );
}

/** Logs nothing. */
export const silentLogger: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** The logger a `LoggerOption` names. */
export function resolveLogger(option: LoggerOption): Logger {
  if (option === false || option === "silent") return silentLogger;
  if (typeof option === "string") return jsonLogger({ level: option });
  return option;
}

// Quiet until a level is set: a library writes nothing into its host's output unless asked to.
let threshold: LogLevel = "silent";
let sink: (line: string) => void = stdout;
const processJson = json(
  () => threshold,
  () => sink,
);
let processLogger: Logger = processJson;
const scoped = new AsyncLocalStorage<Logger>();

/** The level of the default JSON logger (the service passes `LOG_LEVEL`). */
export function setLogLevel(level: LogLevel): void {
  threshold = level;
}

/** The current threshold (`debug` adds detail such as stacks to some lines). */
export function logLevel(): LogLevel {
  return threshold;
}

/** Redirects the default JSON logger's lines (the chat CLI sends them to stderr so replies stay clean on stdout). */
export function setLogSink(write: (line: string) => void): void {
  sink = write;
}

/**
 * The process-wide logger, used wherever no `withLogger` (no memory graph's own logger) applies;
 * `null` puts the default JSON logger back.
 */
export function setLogger(option: LoggerOption | null): void {
  processLogger = option === null ? processJson : resolveLogger(option);
}

/** Runs `work` with `logger` as the logger of everything it logs, async continuations included. */
export function withLogger<T>(logger: Logger, work: () => T): T {
  return scoped.run(logger, work);
}

function emit(level: Exclude<LogLevel, "silent">, event: string, fields: LogFields): void {
  // With tracing on, a line logged inside a span (an HTTP request, a turn) carries its trace id.
  (scoped.getStore() ?? processLogger)[level]({ event, ...traceFields(), ...fields }, event);
}

export const log = {
  debug: (event: string, fields: LogFields = {}) => emit("debug", event, fields),
  info: (event: string, fields: LogFields = {}) => emit("info", event, fields),
  warn: (event: string, fields: LogFields = {}) => emit("warn", event, fields),
  error: (event: string, fields: LogFields = {}) => emit("error", event, fields),
};
