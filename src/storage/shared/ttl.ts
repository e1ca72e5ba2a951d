import type { GetOperation, Operation, PutOperation, SearchOperation } from "@langchain/langgraph-checkpoint";
import { invalidInput } from "../../errors.js";
import { log } from "../../logger.js";

/**
 * A store's time to live, as LangGraph's `TTLConfig` (Python `langgraph.store.base.TTLConfig`,
 * JS `@langchain/langgraph-checkpoint-postgres`'s `ttl` option). Minutes throughout; fractions allowed.
 */
export interface StoreTtlConfig {
  /** Minutes an item lives after its last write (and read, with `refreshOnRead`) when its put names no `ttl`. Default: none (no expiry). */
  defaultTtl?: number;
  /** Whether `get` and `search` push back the expiry of the items they return by their own TTL (default true); a call's `refreshTtl` overrides it. */
  refreshOnRead?: boolean;
  /** Minutes between sweeps the store makes by itself while open. Default: none (`npm run gc` sweeps). */
  sweepIntervalMinutes?: number;
}

/** A put with LangGraph's per-item TTL: minutes, `null` for none even under a store default, left out for the store's default. */
export type TtlPutOperation = PutOperation & { ttl?: number | null };

/** A get or search with LangGraph's per-call `refreshTtl` (left out: the store's `refreshOnRead`). */
export type RefreshingRead = (GetOperation | SearchOperation) & { refreshTtl?: boolean };

/**
 * The time a read runs at (epoch milliseconds: items expired by then are not seen) and, when the
 * read refreshes TTLs, where it collects the row ids it returns that have one.
 */
export interface ReadTime<Id = number> {
  now: number;
  expiring?: Id[];
}

const MINUTE_MS = 60_000;

/** Throws INVALID_INPUT naming `field` unless `value` is left out or a number of minutes > 0. */
export function assertMinutes(value: unknown, field: string): void {
  if (value !== undefined && !(typeof value === "number" && Number.isFinite(value) && value > 0)) {
    throw invalidInput(field, "must be a number of minutes > 0");
  }
}

/** Checks a store's TTL settings (at construction: a bad one fails before the store is used). */
export function validateTtlConfig(config: StoreTtlConfig | undefined): void {
  if (config === undefined) return;
  assertMinutes(config.defaultTtl, "ttl.defaultTtl");
  assertMinutes(config.sweepIntervalMinutes, "ttl.sweepIntervalMinutes");
  if (config.refreshOnRead !== undefined && typeof config.refreshOnRead !== "boolean") throw invalidInput("ttl.refreshOnRead", "must be a boolean");
}

/** When an item with `ttlMinutes` written (or refreshed) at `now` expires, in epoch milliseconds; null for never. */
export function expiresAtOf(ttlMinutes: number | null, now: number): number | null {
  return ttlMinutes === null ? null : now + ttlMinutes * MINUTE_MS;
}

/** Whether a read refreshes the TTLs of what it returns: its own `refreshTtl`, else the store's `refreshOnRead` (default true). */
export function refreshesOnRead(op: Operation, config: StoreTtlConfig | undefined): boolean {
  return (op as RefreshingRead).refreshTtl ?? config?.refreshOnRead ?? true;
}

/**
 * The store's own sweeps every `sweepIntervalMinutes` (none without it), on a timer that never
 * keeps the process alive; a failed sweep is logged and the next one tried. `stop` ends them.
 */
export class TtlSweeper {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly engine: string,
    private readonly sweep: () => Promise<number>,
  ) {}

  start(config: StoreTtlConfig | undefined): void {
    if (this.timer || config?.sweepIntervalMinutes === undefined) return;
    this.timer = setInterval(() => {
      this.sweep().then(
        (items) => log.debug("store.ttl_swept", { backend: this.engine, items }),
        (error: unknown) => log.warn("store.ttl_sweep_failed", { backend: this.engine, error: (error as Error).message }),
      );
    }, config.sweepIntervalMinutes * MINUTE_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
