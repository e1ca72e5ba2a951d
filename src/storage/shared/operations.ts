import type { ListNamespacesOperation, MatchCondition, Operation } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError, type ErrorCode } from "../../errors.js";
import type { WeightedSearch } from "../../memory/ports/store.js";
import { validateFilter } from "./filter-grammar.js";
import { assertTenantNamespace } from "./namespace.js";
import { validateTtlFields } from "./ttl.js";

function invalid(code: Extract<ErrorCode, "INVALID_INPUT" | "INVALID_KEY" | "INVALID_VALUE">, field: string, message: string): MemoryGraphError {
  return new MemoryGraphError(code, `${field}: ${message}`, { kind: "user", field });
}

function assertCount(value: unknown, field: string): void {
  if (value !== undefined && (!Number.isInteger(value) || (value as number) < 0)) {
    throw invalid("INVALID_INPUT", field, "must be an integer ≥ 0");
  }
}

function prefixConditions(op: ListNamespacesOperation): MatchCondition[] {
  return (op.matchConditions ?? []).filter((c) => c.matchType === "prefix");
}

/**
 * Checks one batch operation before anything runs, so a bad batch changes nothing: namespaces
 * and prefixes begin with a tenant (a list operation needs a prefix condition with one), keys are
 * non-empty strings, values are JSON objects or null, filters keep the grammar (`validateFilter`), counts are integers ≥ 0, `textChars` an integer ≥ 1, a put's `ttl` minutes > 0 or null, a read's `refreshTtl` a boolean.
 */
export function validateOperation(op: Operation): void {
  if ("namespacePrefix" in op) {
    assertTenantNamespace(op.namespacePrefix, { field: "namespacePrefix" });
    validateFilter(op.filter);
    assertCount(op.limit, "limit");
    assertCount(op.offset, "offset");
    if (op.query !== undefined && typeof op.query !== "string") throw invalid("INVALID_INPUT", "query", "must be a string");
    const { textChars } = op as WeightedSearch;
    if (textChars !== undefined && (!Number.isInteger(textChars) || textChars < 1)) throw invalid("INVALID_INPUT", "textChars", "must be an integer ≥ 1");
    validateTtlFields(op);
    return;
  }
  if ("namespace" in op) {
    assertTenantNamespace(op.namespace);
    if (typeof op.key !== "string" || op.key === "") throw invalid("INVALID_KEY", "key", "must be a non-empty string");
    if ("value" in op) {
      const { value } = op;
      if (value !== null && (typeof value !== "object" || Array.isArray(value))) {
        throw invalid("INVALID_VALUE", "value", "must be a JSON object or null");
      }
    }
    validateTtlFields(op);
    return;
  }
  const prefixes = prefixConditions(op);
  if (prefixes.length === 0) {
    throw new MemoryGraphError("NAMESPACE_TENANT_REQUIRED", "prefix: listing namespaces needs a prefix that begins with a tenant id", {
      kind: "user",
      field: "prefix",
    });
  }
  for (const condition of prefixes) assertTenantNamespace(condition.path, { field: "prefix", allowWildcards: true });
  assertCount(op.maxDepth, "maxDepth");
  assertCount(op.limit, "limit");
  assertCount(op.offset, "offset");
}
