import { MemoryGraphError } from "../../errors.js";

/**
 * What every store's `filter` accepts, whatever SQL it becomes: top-level fields compared
 * exactly, or with LangGraph's operators.
 */
export const RANGE = { $gt: ">", $gte: ">=", $lt: "<", $lte: "<=" } as const;
export const OPERATORS = new Set(["$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin"]);

export function invalidFilter(message: string): MemoryGraphError {
  return new MemoryGraphError("INVALID_FILTER", `filter: ${message}`, { kind: "user", field: "filter" });
}

/** `{ $gte: 1 }` and the like: a non-empty object whose keys are all operators. */
export function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((k) => k.startsWith("$"));
}
