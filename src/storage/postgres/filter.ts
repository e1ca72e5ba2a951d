import { invalidFilter as invalid, isOperatorObject, OPERATORS, RANGE } from "../shared/filter-grammar.js";
import type { Params } from "./sql.js";


function jsonOf(value: unknown): string {
  if (value === null || ["boolean", "number", "string", "object"].includes(typeof value)) return JSON.stringify(value);
  throw invalid(`unsupported value of type ${typeof value}`);
}

/** jsonb equality is type-strict (1 ≠ "1" ≠ true) and deep; a missing field yields NULL, i.e. no match. */
function equals(field: string, expected: unknown, p: Params): string {
  return `(i.value -> ${field}) = ${p.add(jsonOf(expected))}::jsonb`;
}

function compare(field: string, op: keyof typeof RANGE, operand: unknown, p: Params): string {
  const bound = operand instanceof Date ? operand.toISOString() : operand;
  if (typeof bound === "number") {
    return `CASE WHEN jsonb_typeof(i.value -> ${field}) = 'number' THEN (i.value ->> ${field})::numeric ${RANGE[op]} ${p.add(bound)}::numeric ELSE false END`;
  }
  if (typeof bound === "string") {
    // Byte order, as SQLite compares text.
    return `CASE WHEN jsonb_typeof(i.value -> ${field}) = 'string' THEN (i.value ->> ${field}) COLLATE "C" ${RANGE[op]} ${p.add(bound)}::text COLLATE "C" ELSE false END`;
  }
  throw invalid(`${op} needs a number, string or Date`);
}

function anyOf(field: string, operand: unknown, p: Params): string {
  if (!Array.isArray(operand)) throw invalid("$in and $nin need an array");
  if (operand.length === 0) return "false";
  return `COALESCE((i.value -> ${field}) = ANY(${p.add(operand.map(jsonOf))}::jsonb[]), false)`;
}

function operatorCondition(field: string, op: string, operand: unknown, p: Params): string {
  switch (op) {
    case "$eq":
      return equals(field, operand, p);
    case "$ne":
      return `(${equals(field, operand, p)}) IS NOT TRUE`;
    case "$in":
      return anyOf(field, operand, p);
    case "$nin":
      return `NOT ${anyOf(field, operand, p)}`;
    case "$gt":
    case "$gte":
    case "$lt":
    case "$lte":
      return compare(field, op, operand, p);
    default:
      throw invalid(`unknown operator ${op}`);
  }
}

/**
 * Translates a `BaseStore` search filter into SQL over the jsonb column `i.value` (table alias
 * `i`), with the same meaning as the SQLite store's `filterToSql`: each top-level field equals a
 * JSON value exactly (type-strict, deep for objects and arrays) or satisfies every operator given
 * ($eq, $ne, $gt, $gte, $lt, $lte, $in, $nin); ranges compare numbers with numbers and strings (or
 * Dates, as ISO strings) with strings, byte-wise; a missing field fails every condition except
 * $ne/$nin. Fields set to `undefined` are ignored. Returns "true" for an empty filter.
 * Throws `INVALID_FILTER` for unknown operators or unsupported operands.
 */
export function filterToPg(filter: Record<string, unknown> | undefined, p: Params): string {
  const parts: string[] = [];
  for (const [name, expected] of Object.entries(filter ?? {})) {
    if (expected === undefined) continue;
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f]/.test(name)) throw invalid(`field name ${JSON.stringify(name)} is not supported`);
    const field = `${p.add(name)}::text`;
    if (isOperatorObject(expected)) {
      for (const [op, operand] of Object.entries(expected)) {
        if (!OPERATORS.has(op)) throw invalid(`unknown operator ${op}`);
        parts.push(operatorCondition(field, op, operand, p));
      }
    } else {
      parts.push(equals(field, expected, p));
    }
  }
  return parts.length === 0 ? "true" : parts.map((s) => `(${s})`).join(" AND ");
}
