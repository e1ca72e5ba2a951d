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

/**
 * Parses JSON text from outside (a request body, a JSON query parameter) into a value the rules
 * hold for: INVALID_JSON when it is not JSON; then `assertJsonBounds` (fields dotted from `root`);
 * then no object may hold one key twice: DUPLICATE_KEY naming the key's field. `JSON.parse`
 * silently keeps the last of two, so `{"user_id":"alice","user_id":"bob"}` would mean alice to a
 * proxy that keeps the first and bob to us. The check is one pass over the text, linear in its
 * length (which the caller's size limit bounds).
 */
export function parseJsonInput(text: string, root = "", bounds: Readonly<JsonBounds> = JSON_BOUNDS): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw new MemoryGraphError("INVALID_JSON", root === "" ? "the body is not valid JSON" : `${root}: must be valid JSON`, { kind: "user", ...(root === "" ? {} : { field: root }) });
  }
  assertJsonBounds(value, root, bounds);
  assertUniqueKeys(text, root, bounds.maxDepth);
  return value;
}

/** Where the scan of `assertUniqueKeys` is: in an object (the keys so far, the last one) or an array (the index). */
interface KeyFrame {
  keys: Set<string> | undefined;
  at: string | number;
}

/**
 * Throws DUPLICATE_KEY naming the field (dotted from `root`) of the first key that appears twice
 * in one object of `text`, which `JSON.parse` has accepted. One pass: strings are skipped with
 * `indexOf` (a key with escapes is decoded once, so `"a"` and `"\u0061"` are the same key), and
 * the stack is held to `maxDepth` levels (text nesting deeper can only be a value that a later
 * duplicate hid from `assertJsonBounds`: INPUT_TOO_COMPLEX, as the value would be).
 */
function assertUniqueKeys(text: string, root: string, maxDepth: number): void {
  const stack: KeyFrame[] = [];
  let expectKey = false;
  const field = () => [...(root === "" ? [] : [root]), ...stack.map((frame) => frame.at)].join(".");
  // What the scan stops at outside strings: structure and the start of a string (numbers and literals are skipped).
  const structure = /["{}[\],]/g;
  for (let match = structure.exec(text); match !== null; match = structure.exec(text)) {
    const char = match[0];
    const top = stack.at(-1);
    if (char === '"') {
      const start = match.index + 1;
      const end = stringEnd(text, start);
      structure.lastIndex = end + 1;
      if (!expectKey || top?.keys === undefined) continue;
      const raw = text.slice(start, end);
      const key = raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
      top.at = key;
      expectKey = false;
      if (top.keys.has(key)) {
        throw new MemoryGraphError("DUPLICATE_KEY", `${field()}: the key ${JSON.stringify(key)} appears twice in one object (each key may appear once)`, { kind: "user", field: field() });
      }
      top.keys.add(key);
    } else if (char === "{" || char === "[") {
      if (stack.length >= maxDepth) {
        throw new MemoryGraphError("INPUT_TOO_COMPLEX", `${field() || "body"}: nests deeper than ${maxDepth} levels (the bound of every JSON input)`, { kind: "user", field: field() || "body" });
      }
      expectKey = char === "{";
      stack.push({ keys: expectKey ? new Set() : undefined, at: expectKey ? "" : 0 });
    } else if (char === "}" || char === "]") {
      stack.pop();
      expectKey = false;
    } else if (top?.keys !== undefined) {
      expectKey = true;
    } else if (top !== undefined) {
      top.at = (top.at as number) + 1;
    }
  }
}

/** The index of the quote that ends the JSON string starting at `start` (the character after its opening quote). */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start);
  while (end > 0 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
  return end < 0 ? text.length : end;
}

/** Whether the character at `index` follows an odd run of backslashes. */
function isEscaped(text: string, index: number): boolean {
  let backslashes = 0;
  for (let at = index - 1; at >= 0 && text[at] === "\\"; at -= 1) backslashes += 1;
  return backslashes % 2 === 1;
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
