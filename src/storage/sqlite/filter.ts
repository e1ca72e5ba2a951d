import { invalidFilter as invalid, isOperatorObject, OPERATORS, RANGE } from "../shared/filter-grammar.js";

/**
 * The SQL condition (over `store_items i`) that SQLite's JSON functions can read the value: JSON
 * nested over 1,000 levels (stored before inputs were bounded) makes them fail with "malformed
 * JSON", for the whole statement. A value of at most 2,000 bytes cannot nest that deep, so only a
 * longer one is checked (`json_valid`, one more parse). Used as a CASE condition, which SQLite
 * evaluates before the branch (an AND in a result column evaluates both sides).
 */
const READABLE_JSON_SQL = "(octet_length(i.value) <= 2000 OR json_valid(i.value))";

/** A SQL condition over `i.value` and its parameters, in order. */
export interface SqlCondition {
  sql: string;
  params: unknown[];
}

const NUMERIC = "IFNULL(json_type(i.value, ?), '') IN ('integer', 'real')";
const TEXTUAL = "json_type(i.value, ?) IS 'text'";

/** Exact equality of the field at `path` with a JSON value (type-strict: 1 ≠ "1" ≠ true). Always 0 or 1. */
function equals(path: string, expected: unknown): SqlCondition {
  if (expected === null) return { sql: "json_type(i.value, ?) IS 'null'", params: [path] };
  if (typeof expected === "boolean") return { sql: `json_type(i.value, ?) IS '${expected ? "true" : "false"}'`, params: [path] };
  if (typeof expected === "number") return { sql: `(${NUMERIC} AND json_extract(i.value, ?) = ?)`, params: [path, path, expected] };
  if (typeof expected === "string") return { sql: `(${TEXTUAL} AND json_extract(i.value, ?) IS ?)`, params: [path, path, expected] };
  if (typeof expected === "object") {
    return {
      sql: "(IFNULL(json_type(i.value, ?), '') IN ('object', 'array') AND json(json_extract(i.value, ?)) IS json(?))",
      params: [path, path, JSON.stringify(expected)],
    };
  }
  throw invalid(`unsupported value of type ${typeof expected}`);
}

function compare(path: string, op: keyof typeof RANGE, operand: unknown): SqlCondition {
  const bound = operand instanceof Date ? operand.toISOString() : operand;
  if (typeof bound === "number") return { sql: `(${NUMERIC} AND json_extract(i.value, ?) ${RANGE[op]} ?)`, params: [path, path, bound] };
  if (typeof bound === "string") return { sql: `(${TEXTUAL} AND json_extract(i.value, ?) ${RANGE[op]} ?)`, params: [path, path, bound] };
  throw invalid(`${op} needs a number, string or Date`);
}

function anyOf(path: string, operand: unknown): SqlCondition {
  if (!Array.isArray(operand)) throw invalid("$in and $nin need an array");
  if (operand.length === 0) return { sql: "0", params: [] };
  const parts = operand.map((v) => equals(path, v));
  return { sql: `(${parts.map((p) => p.sql).join(" OR ")})`, params: parts.flatMap((p) => p.params) };
}

function operatorCondition(path: string, op: string, operand: unknown): SqlCondition {
  switch (op) {
    case "$eq":
      return equals(path, operand);
    case "$ne": {
      const eq = equals(path, operand);
      return { sql: `NOT ${eq.sql}`, params: eq.params };
    }
    case "$in":
      return anyOf(path, operand);
    case "$nin": {
      const any = anyOf(path, operand);
      return { sql: `NOT ${any.sql}`, params: any.params };
    }
    case "$gt":
    case "$gte":
    case "$lt":
    case "$lte":
      return compare(path, op, operand);
    default:
      throw invalid(`unknown operator ${op}`);
  }
}

/**
 * Translates a `BaseStore` search filter into SQL over the JSON column `i.value` (table alias
 * `i`): each top-level field either equals a JSON value exactly, or satisfies every operator
 * given ($eq, $ne, $gt, $gte, $lt, $lte, $in, $nin). Ranges compare numbers with numbers and
 * strings (or Dates, as ISO strings) with strings; a missing field fails every condition except
 * $ne/$nin; a value SQLite's JSON functions cannot read matches nothing. Fields set to `undefined`
 * are ignored. Returns "1" for an empty filter.
 * Throws `INVALID_FILTER` for unknown operators or unsupported operands.
 */
export function filterToSql(filter: Record<string, unknown> | undefined): SqlCondition {
  const parts: SqlCondition[] = [];
  for (const [field, expected] of Object.entries(filter ?? {})) {
    if (expected === undefined) continue;
    // eslint-disable-next-line no-control-regex
    if (/["\u0000-\u001f]/.test(field)) throw invalid(`field name ${JSON.stringify(field)} is not supported`);
    const path = `$."${field}"`;
    if (isOperatorObject(expected)) {
      for (const [op, operand] of Object.entries(expected)) {
        if (!OPERATORS.has(op)) throw invalid(`unknown operator ${op}`);
        parts.push(operatorCondition(path, op, operand));
      }
    } else {
      parts.push(equals(path, expected));
    }
  }
  if (parts.length === 0) return { sql: "1", params: [] };
  // A value SQLite cannot read (nested too deep) matches no filter, instead of failing the search.
  return { sql: `(CASE WHEN ${READABLE_JSON_SQL} THEN ${parts.map((p) => p.sql).join(" AND ")} ELSE 0 END)`, params: parts.flatMap((p) => p.params) };
}
