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

function checkValue(value: unknown): void {
  if (value === null || ["boolean", "number", "string", "object"].includes(typeof value)) return;
  throw invalidFilter(`unsupported value of type ${typeof value}`);
}

function checkOperator(op: string, operand: unknown): void {
  if (!OPERATORS.has(op)) throw invalidFilter(`unknown operator ${op}`);
  if (op === "$eq" || op === "$ne") return checkValue(operand);
  if (op === "$in" || op === "$nin") {
    if (!Array.isArray(operand)) throw invalidFilter("$in and $nin need an array");
    return operand.forEach(checkValue);
  }
  const bound = operand instanceof Date ? operand.toISOString() : operand;
  if (typeof bound !== "number" && typeof bound !== "string") throw invalidFilter(`${op} needs a number, string or Date`);
}

/**
 * Checks a search filter against the grammar every engine accepts, before any engine turns it
 * into SQL: top-level field names without quotes or control characters, each equal to a JSON
 * value or an object of known operators with fitting operands. Fields set to `undefined` are
 * ignored. Throws `INVALID_FILTER` naming the first problem.
 */
export function validateFilter(filter: Record<string, unknown> | undefined): void {
  for (const [field, expected] of Object.entries(filter ?? {})) {
    if (expected === undefined) continue;
    // eslint-disable-next-line no-control-regex
    if (/["\u0000-\u001f]/.test(field)) throw invalidFilter(`field name ${JSON.stringify(field)} is not supported`);
    if (isOperatorObject(expected)) for (const [op, operand] of Object.entries(expected)) checkOperator(op, operand);
    else checkValue(expected);
  }
}
