import { MemoryGraphError } from "../errors.js";

/** How many long-term events a user keeps, and for how long. */
export interface RetentionPolicy {
  maxEventsPerUser: number;
  eventRetentionDays: number;
}

/** 1,000 events per user, kept for 365 days. */
export const DEFAULT_RETENTION: RetentionPolicy = Object.freeze({ maxEventsPerUser: 1000, eventRetentionDays: 365 });

const DAY_MS = 24 * 60 * 60 * 1000;

function checkPolicy(policy: RetentionPolicy, now: Date): void {
  for (const field of ["maxEventsPerUser", "eventRetentionDays"] as const) {
    const value = policy[field];
    if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
      throw new MemoryGraphError("INVALID_RETENTION_POLICY", `${field} must be a number ≥ 0, got ${String(value)}`, {
        kind: "system",
        field,
      });
    }
  }
  if (Number.isNaN(now.getTime())) {
    throw new MemoryGraphError("INVALID_RETENTION_POLICY", "now is an invalid Date", { kind: "system", field: "now" });
  }
}

function nameOf(event: { createdAt: string }, index: number): string {
  const id = (event as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? `event ${String(id)} (index ${index})` : `event at index ${index}`;
}

/**
 * Splits `events` into those a retention policy keeps and those it drops. An event created
 * before `now - eventRetentionDays` is dropped (one created exactly at the cutoff is kept);
 * of the rest, only the newest `maxEventsPerUser` by `createdAt` are kept (on equal times the
 * later one in `events` counts as newer).
 *
 * Invariants: `kept` and `dropped` partition `events`, each in input order;
 * `kept.length ≤ maxEventsPerUser`; nothing kept is older than the cutoff. Pure.
 * Throws `INVALID_EVENT_DATE` (naming the event) when a `createdAt` does not parse, and
 * `INVALID_RETENTION_POLICY` for a negative or NaN limit or an invalid `now`.
 */
export function applyEventRetention<T extends { createdAt: string }>(
  events: readonly T[],
  policy: RetentionPolicy,
  now: Date,
): { kept: T[]; dropped: T[] } {
  checkPolicy(policy, now);
  const cutoff = now.getTime() - policy.eventRetentionDays * DAY_MS;
  const times = events.map((event, index) => {
    const time = Date.parse(event.createdAt);
    if (Number.isNaN(time)) {
      throw new MemoryGraphError("INVALID_EVENT_DATE", `${nameOf(event, index)} has an invalid createdAt: ${JSON.stringify(event.createdAt)}`, {
        kind: "user",
        field: `events[${index}].createdAt`,
      });
    }
    return time;
  });
  const fresh = times.flatMap((time, index) => (time >= cutoff ? [index] : []));
  const newestFirst = fresh.sort((a, b) => (times[b] ?? 0) - (times[a] ?? 0) || b - a);
  const keep = new Set(newestFirst.slice(0, Math.max(0, Math.floor(policy.maxEventsPerUser))));
  const kept: T[] = [];
  const dropped: T[] = [];
  events.forEach((event, index) => (keep.has(index) ? kept : dropped).push(event));
  return { kept, dropped };
}
