import type { ListNamespacesOperation } from "@langchain/langgraph-checkpoint";
import { MemoryGraphError } from "../../errors.js";

/** Separates labels in the stored namespace path; labels may not contain control characters, so it never collides. */
const SEPARATOR = "\u001f";
// U+0000–U+001F and U+007F–U+009F.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Refuses a namespace (or namespace prefix) that does not begin with a tenant. Throws
 * `NAMESPACE_TENANT_REQUIRED` when it is empty, its first label is empty, or (with
 * `allowWildcards`) its first label is the wildcard "*"; throws `INVALID_NAMESPACE` when a label
 * is not a non-empty string free of control characters, or the tenant contains "/" or "..".
 * Wildcards ("*") are accepted after the tenant only when `allowWildcards` is set (list prefixes).
 */
export function assertTenantNamespace(namespace: unknown, options: { field?: string; allowWildcards?: boolean } = {}): asserts namespace is string[] {
  const field = options.field ?? "namespace";
  if (!Array.isArray(namespace) || namespace.length === 0) {
    throw new MemoryGraphError("NAMESPACE_TENANT_REQUIRED", `${field} must begin with a tenant id`, { kind: "user", field });
  }
  const tenant: unknown = namespace[0];
  if (tenant === "" || (options.allowWildcards && tenant === "*")) {
    throw new MemoryGraphError("NAMESPACE_TENANT_REQUIRED", `${field} must begin with a tenant id`, { kind: "user", field });
  }
  namespace.forEach((label: unknown, i) => {
    if (typeof label !== "string" || label === "" || CONTROL.test(label)) {
      throw new MemoryGraphError("INVALID_NAMESPACE", `${field}[${i}] must be a non-empty string without control characters`, {
        kind: "user",
        field,
      });
    }
  });
  if ((tenant as string).includes("/") || (tenant as string).includes("..")) {
    throw new MemoryGraphError("INVALID_NAMESPACE", `${field}: the tenant id may not contain "/" or ".."`, { kind: "user", field });
  }
}

/** The stored path of a namespace: labels each followed by the separator, so a prefix's path is a string prefix. */
export function pathOf(namespace: readonly string[]): string {
  return namespace.map((label) => label + SEPARATOR).join("");
}

/**
 * The half-open range [from, to) of stored paths under `prefix` (the prefix itself included):
 * every path starting with `pathOf(prefix)` and nothing else, usable by the unique index.
 */
export function prefixRange(prefix: readonly string[]): { from: string; to: string } {
  const from = pathOf(prefix);
  return { from, to: `${from.slice(0, -1)}\u0020` };
}

/** Whether `namespace` satisfies a prefix or suffix condition ("*" matches any one label). */
export function matchesCondition(namespace: readonly string[], condition: { matchType: string; path: readonly string[] }): boolean {
  const { path } = condition;
  if (path.length > namespace.length) return false;
  const start = condition.matchType === "suffix" ? namespace.length - path.length : 0;
  return path.every((label, i) => label === "*" || namespace[start + i] === label);
}

/** The stored-path range a listNamespaces operation has to scan: its first prefix, up to a wildcard. */
export function listScanRange(op: ListNamespacesOperation): { from: string; to: string } {
  const first = op.matchConditions?.find((c) => c.matchType === "prefix")?.path ?? [];
  const wildcard = first.indexOf("*");
  return prefixRange(wildcard === -1 ? first : first.slice(0, wildcard));
}

function compareNamespaces(a: readonly string[], b: readonly string[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const x = a[i] ?? "";
    const y = b[i] ?? "";
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * The answer of a listNamespaces operation from the namespaces found in its scan range: those
 * meeting every match condition, each cut to `maxDepth` labels (then deduplicated), sorted label
 * by label, paged by `offset`/`limit`. Pure; every store lists namespaces through it.
 */
export function pickNamespaces(namespaces: Iterable<readonly string[]>, op: ListNamespacesOperation): string[][] {
  const conditions = op.matchConditions ?? [];
  const found = new Map<string, string[]>();
  for (const namespace of namespaces) {
    if (!conditions.every((c) => matchesCondition(namespace, c))) continue;
    const cut = op.maxDepth === undefined ? [...namespace] : namespace.slice(0, op.maxDepth);
    found.set(JSON.stringify(cut), cut);
  }
  const sorted = [...found.values()].sort(compareNamespaces);
  const offset = op.offset ?? 0;
  return sorted.slice(offset, offset + (op.limit ?? sorted.length));
}
