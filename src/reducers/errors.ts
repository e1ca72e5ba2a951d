/** An error a node recorded in state instead of failing the turn. `code` is UPPER_SNAKE. */
export interface NodeError {
  node: string;
  code: string;
  message: string;
}

/**
 * Append-only reducer for recorded node errors: returns a new array of `current` followed by
 * `update` (one error or several), in order. Neither argument is mutated.
 */
export function appendErrors(current: NodeError[], update: NodeError | NodeError[]): NodeError[] {
  const added = Array.isArray(update) ? update : [update];
  return [...(current ?? []), ...added];
}
