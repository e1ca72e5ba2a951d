/**
 * Structured JSON logging to stdout, one object per line, with the `severity` field Cloud Logging
 * reads. The level comes from the `LOG_LEVEL` the entry point passes to `setLogLevel`.
 */
export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
const SEVERITY: Record<Exclude<LogLevel, "silent">, string> = {
  debug: "DEBUG",
  info: "INFO",
  warn: "WARNING",
  error: "ERROR",
};

let threshold: LogLevel = "info";
let sink: (line: string) => void = (line) => process.stdout.write(`${line}\n`);

export function setLogLevel(level: LogLevel): void {
  threshold = level;
}

/** The current threshold (`debug` adds detail such as stacks to some lines). */
export function logLevel(): LogLevel {
  return threshold;
}

/** Redirects log lines (the chat CLI sends them to stderr so replies stay clean on stdout). */
export function setLogSink(write: (line: string) => void): void {
  sink = write;
}

function emit(level: Exclude<LogLevel, "silent">, event: string, fields: Record<string, unknown>): void {
  if (RANK[level] < RANK[threshold]) return;
  sink(JSON.stringify({ severity: SEVERITY[level], time: new Date().toISOString(), event, ...fields }));
}

export const log = {
  debug: (event: string, fields: Record<string, unknown> = {}) => emit("debug", event, fields),
  info: (event: string, fields: Record<string, unknown> = {}) => emit("info", event, fields),
  warn: (event: string, fields: Record<string, unknown> = {}) => emit("warn", event, fields),
  error: (event: string, fields: Record<string, unknown> = {}) => emit("error", event, fields),
};
