import type { ModelUsage } from "../../models/usage.js";

/** A channel that holds its last value: an update replaces what was there. */
export function lastValueReducer<T>(_current: T, update: T): T {
  return update;
}

/** A record channel updated field by field: an update overwrites the fields it names. */
export function mergeFields<T extends object>(current: T, update: Partial<T>): T {
  return { ...current, ...update };
}

/** This turn's model calls: `null` (ingest_prompt) starts a new turn's list, a list appends. */
export function addUsage(current: ModelUsage[], update: ModelUsage[] | null): ModelUsage[] {
  return update === null ? [] : [...current, ...update];
}
