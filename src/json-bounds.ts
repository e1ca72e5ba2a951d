import { MemoryGraphError } from "./errors.js";

/**
 * The one bound on the structure of JSON taken from outside (turn inputs, metadata, files, import
 * documents, event payloads, fact values, dev-server input), and the one text rule: checked on the
 * parsed value before anything else reads it, so that no store, index, serializer or reviver ever
 * meets a value deeper, wider or longer than this. Iterative: a hostile value cannot overflow the stack.
 */

export interface JsonBounds {
  /** Most levels of objects and arrays (the outermost object is level 1). */
  maxDepth: number;
  /** Most items of one array. */
  maxArrayItems: number;
  /** Most keys of one object. */
  maxKeys: number;
  /** Most UTF-16 code units of one string (value or key). */
  maxStringChars: number;
}

/** The bounds every input is held to (narrower rules of single fields come on top). */
export const JSON_BOUNDS: Readonly<JsonBounds> = Object.freeze({
  maxDepth: 32,
  maxArrayItems: 10_000,
  maxKeys: 1_000,
  maxStringChars: 1_000_000,
});

/** What the text rule refuses, in words (error messages and the API document use it). */
export const TEXT_RULE = "text must not contain NUL (U+0000) or a lone surrogate";

interface Frame {
  value: unknown;
  depth: number;
  key: string | number | undefined;
  parent: Frame | undefined;
}

/**
 * Throws a user error naming the field (dotted from `root`) when `value` breaks a bound of
 * `bounds` (INPUT_TOO_COMPLEX, naming the bound), holds a string or key with NUL or a lone
 * surrogate (INVALID_TEXT), or a number JSON cannot carry (INVALID_INPUT). Returns `value`.
 */
export function assertJsonBounds<T>(value: T, root = "", bounds: Readonly<JsonBounds> = JSON_BOUNDS): T {
  const stack: Frame[] = [{ value, depth: 0, key: undefined, parent: undefined }];
  while (stack.length > 0) {
    const frame = stack.pop() as Frame;
    const item = frame.value;
    if (typeof item === "string") {
      checkString(item, frame, root, bounds, "");
      continue;
    }
    if (typeof item === "number") {
      if (!Number.isFinite(item)) throw new MemoryGraphError("INVALID_INPUT", `${fieldOf(frame, root)}: must be a finite number`, errorOptions(frame, root));
      continue;
    }
    if (item === null || typeof item !== "object") continue;
    const depth = frame.depth + 1;
    if (depth > bounds.maxDepth) throw tooComplex(frame, root, `nests deeper than ${bounds.maxDepth} levels`);
    if (Array.isArray(item)) {
      if (item.length > bounds.maxArrayItems) throw tooComplex(frame, root, `has more than ${bounds.maxArrayItems} items`);
      for (let i = item.length - 1; i >= 0; i -= 1) stack.push({ value: item[i], depth, key: i, parent: frame });
      continue;
    }
    const keys = Object.keys(item);
    if (keys.length > bounds.maxKeys) throw tooComplex(frame, root, `has more than ${bounds.maxKeys} keys`);
    for (let i = keys.length - 1; i >= 0; i -= 1) {
      const key = keys[i] as string;
      const child: Frame = { value: (item as Record<string, unknown>)[key], depth, key, parent: frame };
      checkString(key, child, root, bounds, " (its name)");
      stack.push(child);
    }
  }
  return value;
}

/** Throws INVALID_TEXT naming `field` when `text` breaks the text rule (NUL or a lone surrogate); returns it. */
export function assertText(text: string, field: string): string {
  if (!isCleanText(text)) throw invalidText(field);
  return text;
}

/** Whether `text` keeps the text rule: no NUL, no lone surrogate. */
export function isCleanText(text: string): boolean {
  return !text.includes("\u0000") && text.isWellFormed();
}

/**
 * How deeply `value` nests (objects and arrays; a scalar is 0), counting no further than `stopAbove`
 * levels plus one. Iterative.
 */
export function jsonDepth(value: unknown, stopAbove = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (item === null || typeof item !== "object") continue;
    deepest = Math.max(deepest, depth);
    if (deepest > stopAbove) return deepest;
    for (const inner of Object.values(item)) stack.push([inner, depth + 1]);
  }
  return deepest;
}

function checkString(text: string, frame: Frame, root: string, bounds: Readonly<JsonBounds>, what: string): void {
  if (text.length > bounds.maxStringChars) throw tooComplex(frame, root, `is longer than ${bounds.maxStringChars} characters${what}`);
  if (!isCleanText(text)) throw invalidText(fieldOf(frame, root), what);
}

function fieldOf(frame: Frame, root: string): string {
  const path: (string | number)[] = [];
  for (let at: Frame | undefined = frame; at?.key !== undefined; at = at.parent) path.push(at.key);
  if (root !== "") path.push(root);
  return path.reverse().join(".") || "body";
}

function errorOptions(frame: Frame, root: string) {
  return { kind: "user" as const, field: fieldOf(frame, root) };
}

function tooComplex(frame: Frame, root: string, why: string): MemoryGraphError {
  const field = fieldOf(frame, root);
  return new MemoryGraphError("INPUT_TOO_COMPLEX", `${field}: ${why} (the bound of every JSON input)`, { kind: "user", field });
}

function invalidText(field: string, what = ""): MemoryGraphError {
  return new MemoryGraphError("INVALID_TEXT", `${field}${what}: ${TEXT_RULE}`, { kind: "user", field });
}

/**
 * A copy of `value` with every object or array nested deeper than `maxDepth` levels replaced by
 * null, and how many were replaced (0: `value` itself is returned). Iterative. For repairing data
 * stored before inputs were bounded; never for input, which is refused instead.
 */
export function pruneDeep(value: unknown, maxDepth: number): { value: unknown; pruned: number } {
  if (jsonDepth(value, maxDepth) <= maxDepth) return { value, pruned: 0 };
  let pruned = 0;
  const copyOf = (item: unknown): unknown => (Array.isArray(item) ? [...(item as unknown[])] : { ...(item as Record<string, unknown>) });
  const root = copyOf(value);
  const stack: [Record<string, unknown>, number][] = [[root as Record<string, unknown>, 1]];
  while (stack.length > 0) {
    const [container, depth] = stack.pop() as [Record<string, unknown>, number];
    for (const key of Object.keys(container)) {
      const inner = container[key];
      if (inner === null || typeof inner !== "object") continue;
      if (depth + 1 > maxDepth) {
        container[key] = null;
        pruned += 1;
        continue;
      }
      const copy = copyOf(inner) as Record<string, unknown>;
      container[key] = copy;
      stack.push([copy, depth + 1]);
    }
  }
  return { value: root, pruned };
}
