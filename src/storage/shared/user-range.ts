import type { UserListQuery } from "../../memory/ports/store.js";
import { pathOf, prefixRange } from "./namespace.js";

/** Separates the labels of a stored namespace path (namespace.ts). */
export const SEPARATOR = "\u001f";

/** Above every character a label may hold, so `[from, from + TOP)` is every path that starts with `from`. */
const TOP = "\u{10FFFF}";

/**
 * The stored-path range of the users `query` asks for under tenant label `tenant`, and where the
 * user's label starts in each path (a 1-based character position, as SQL's `substr` counts).
 */
export function userRange(tenant: string, query: UserListQuery): { from: string; to: string; labelAt: number } {
  const users = pathOf([tenant, "users"]);
  const labelAt = users.length + 1;
  if (query.exact) return { ...prefixRange([tenant, "users", query.labelPrefix]), labelAt };
  if (query.labelPrefix === "") return { ...prefixRange([tenant, "users"]), labelAt };
  const from = users + query.labelPrefix;
  return { from, to: from + TOP, labelAt };
}
