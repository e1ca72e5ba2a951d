/** An error a node recorded in state instead of failing the turn. `code` is UPPER_SNAKE. */
export interface NodeError {
  node: string;
  code: string;
  message: string;
  /** The turn that recorded it, so a caller can be given the errors of its own turn. */
  turnId?: string;
}

/** How many recorded errors a session keeps; older ones fall off so the state stays bounded. */
export const MAX_KEPT_ERRORS = 100;

/**
 * Append-only reducer for recorded node errors: `current` followed by `update` (one error or
 * several), in order — entries are never changed or reordered; past `MAX_KEPT_ERRORS` only the
 * oldest fall off. Returns a new array; neither argument is mutated.
 */
export function appendErrors(current: NodeError[], update: NodeError | NodeError[]): NodeError[] {
  const added = Array.isArray(update) ? update : [update];
  const all = [...(current ?? []), ...added];
  return all.length > MAX_KEPT_ERRORS ? all.slice(all.length - MAX_KEPT_ERRORS) : all;
}
