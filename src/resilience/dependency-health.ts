import { MemoryGraphError, messageOf, type StorageDependency } from "../errors.js";
import { log } from "../logger.js";
import { metrics } from "../telemetry.js";
import type { DependencyProbe } from "../memory/ports/persistence.js";
import { withinStorageTimeout } from "./storage-failure.js";

/** One storage dependency: which engine serves it and how to ask whether it answers. */
export type DependencySpec = DependencyProbe;

/** What `/readyz` and `MemoryGraph.health()` report of one dependency. */
export interface DependencyStatus {
  name: StorageDependency;
  engine: string;
  ok: boolean;
  /** When it last went down or came back (ISO), or when watching began. */
  since: string;
  error: string | null;
  /** Outages seen by this process, turns answered without it, turns refused for want of it. */
  outages: number;
  degradedTurns: number;
  refusedTurns: number;
}

export interface HealthOptions {
  /** Each ping, and each storage call, gives up after this many milliseconds. */
  timeoutMs: number;
  /** Probing a lost dependency starts after `initialMs` and backs off, doubling, to `maxMs`. */
  backoff?: { initialMs: number; maxMs: number };
}

interface Entry extends DependencyStatus {
  ping: () => Promise<void>;
  sinceMs: number;
  probe: NodeJS.Timeout | null;
  delayMs: number;
  warnedDegraded: boolean;
  lastTrialMs: number;
}

/** While a dependency is down, one real call may try it this often (see `admits`). */
const TRIAL_INTERVAL_MS = 250;

const CODES: Record<StorageDependency, "SESSION_STORE_UNAVAILABLE" | "MEMORY_STORE_UNAVAILABLE"> = { session_store: "SESSION_STORE_UNAVAILABLE", memory_store: "MEMORY_STORE_UNAVAILABLE" };
const ROLES: Record<StorageDependency, string> = { session_store: "the session store", memory_store: "the long-term memory store" };

/**
 * What this process knows of its storage dependencies. A failed call marks one down (logged once,
 * at WARNING); while it is down, calls to it fail at once instead of each waiting for a timeout,
 * and a probe pings it with bounded back-off until it answers (logged once, at INFO). Any call or
 * ping that succeeds marks it up again.
 */
export class DependencyHealth {
  private readonly entries = new Map<StorageDependency, Entry>();
  private readonly backoff: { initialMs: number; maxMs: number };
  private closed = false;

  constructor(
    specs: readonly DependencySpec[],
    readonly options: HealthOptions,
  ) {
    this.backoff = options.backoff ?? { initialMs: 200, maxMs: 2000 };
    const now = Date.now();
    for (const spec of specs) {
      this.entries.set(spec.name, {
        ...spec,
        ok: true,
        since: new Date(now).toISOString(),
        sinceMs: now,
        error: null,
        outages: 0,
        degradedTurns: 0,
        refusedTurns: 0,
        probe: null,
        delayMs: this.backoff.initialMs,
        warnedDegraded: false,
        lastTrialMs: 0,
      });
    }
  }

  isDown(name: StorageDependency): boolean {
    return this.entries.get(name)?.ok === false;
  }

  /**
   * Whether to make a call to `name` now: always while it is up; while it is down, one call in every
   * `TRIAL_INTERVAL_MS` (a trial: when it succeeds the dependency is up again, so recovery is seen
   * as soon as traffic reaches it, not only at the next probe), and none other.
   */
  admits(name: StorageDependency): boolean {
    const entry = this.entries.get(name);
    if (!entry || entry.ok) return true;
    const now = Date.now();
    if (now - entry.lastTrialMs < TRIAL_INTERVAL_MS) return false;
    entry.lastTrialMs = now;
    return true;
  }

  reportFailure(name: StorageDependency, error: unknown): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    entry.error = messageOf(error);
    if (!entry.ok) return;
    entry.ok = false;
    entry.sinceMs = Date.now();
    entry.since = new Date(entry.sinceMs).toISOString();
    entry.outages += 1;
    entry.delayMs = this.backoff.initialMs;
    entry.warnedDegraded = false;
    entry.lastTrialMs = entry.sinceMs;
    log.warn("dependency.lost", { dependency: name, engine: entry.engine, error: entry.error });
    this.scheduleProbe(entry);
  }

  reportSuccess(name: StorageDependency): void {
    const entry = this.entries.get(name);
    if (!entry || entry.ok) return;
    const downMs = Date.now() - entry.sinceMs;
    entry.ok = true;
    entry.sinceMs = Date.now();
    entry.since = new Date(entry.sinceMs).toISOString();
    entry.error = null;
    if (entry.probe) clearTimeout(entry.probe);
    entry.probe = null;
    log.info("dependency.recovered", { dependency: name, engine: entry.engine, down_ms: downMs });
  }

  /** Counts a turn answered without `name`; logs a WARNING for the first such turn of an outage. */
  countDegraded(name: StorageDependency, fields: Record<string, unknown> = {}): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    entry.degradedTurns += 1;
    metrics()?.degradedTurns.add(1, { dependency: name, engine: entry.engine });
    if (entry.warnedDegraded) return log.debug("turn.degraded", { dependency: name, ...fields });
    entry.warnedDegraded = true;
    log.warn("turn.degraded", { dependency: name, engine: entry.engine, message: `${ROLES[name]} does not answer: turns run on a session rebuilt from long-term memory`, ...fields });
  }

  /** Seconds a refused caller should wait: the next probe, rounded up (at least 1). */
  retryAfterSeconds(): number {
    let ms = 0;
    for (const entry of this.entries.values()) if (!entry.ok) ms = Math.max(ms, entry.delayMs);
    return Math.max(1, Math.ceil(ms / 1000));
  }

  /** Counts a turn refused for want of `name`. */
  countRefused(name: StorageDependency): void {
    const entry = this.entries.get(name);
    if (!entry) return;
    entry.refusedTurns += 1;
    metrics()?.refusedTurns.add(1, { dependency: name, engine: entry.engine });
  }

  /** The typed error of a call or turn refused for want of `name` (kind `upstream`, naming the dependency: HTTP 503 with Retry-After). */
  unavailable(name: StorageDependency, cause?: unknown): MemoryGraphError {
    const entry = this.entries.get(name);
    const down = [...this.entries.values()].filter((e) => !e.ok).map((e) => `${e.name} (${e.engine})`);
    const also = down.length > 1 ? `; down: ${down.join(", ")}` : "";
    return new MemoryGraphError(CODES[name], `${ROLES[name]}${entry ? ` (${entry.engine})` : ""} does not answer; the turn was not completed, retry later${also}`, {
      kind: "upstream",
      dependency: name,
      retryAfterSeconds: this.retryAfterSeconds(),
      cause,
    });
  }

  /** Pings every dependency at once, each within `timeoutMs`, and reports what answered. */
  async check(timeoutMs: number): Promise<DependencyStatus[]> {
    await Promise.all([...this.entries.values()].map((entry) => this.ping(entry, timeoutMs)));
    return this.statuses();
  }

  statuses(): DependencyStatus[] {
    return [...this.entries.values()].map(({ name, engine, ok, since, error, outages, degradedTurns, refusedTurns }) => ({
      name,
      engine,
      ok,
      since,
      error,
      outages,
      degradedTurns,
      refusedTurns,
    }));
  }

  /** Stops probing (the graph is closing). */
  close(): void {
    this.closed = true;
    for (const entry of this.entries.values()) if (entry.probe) clearTimeout(entry.probe);
  }

  private async ping(entry: Entry, timeoutMs: number): Promise<boolean> {
    try {
      await withinStorageTimeout(entry.ping(), timeoutMs);
      this.reportSuccess(entry.name);
      return true;
    } catch (error) {
      this.reportFailure(entry.name, error);
      return false;
    }
  }

  private scheduleProbe(entry: Entry): void {
    if (this.closed || entry.probe) return;
    const jitter = 0.8 + Math.random() * 0.4;
    entry.probe = setTimeout(() => {
      entry.probe = null;
      void this.ping(entry, this.options.timeoutMs).then((ok) => {
        if (ok) return;
        entry.delayMs = Math.min(entry.delayMs * 2, this.backoff.maxMs);
        this.scheduleProbe(entry);
      });
    }, Math.round(entry.delayMs * jitter));
    entry.probe.unref();
  }
}
