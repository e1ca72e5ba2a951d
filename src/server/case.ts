/** camelCase ⇄ snake_case for the JSON the service speaks (snake_case) and the code (camelCase). */

/** `parentMessageId` → `parent_message_id`. */
export function toSnake(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/** `parent_message_id` → `parentMessageId`. */
export function toCamel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

/** A dotted field path in snake_case: `prompts.0.files.1.transferMethod` → `prompts.0.files.1.transfer_method`. */
export function snakeField(path: string): string {
  return path.split(".").map(toSnake).join(".");
}

/**
 * A copy of a JSON value with every object key in snake_case, except below keys named in
 * `opaque` (caller data such as `payload` or `metadata`, and a turn record's `result`, returned as stored).
 */
export function snakeKeys(value: unknown, opaque: ReadonlySet<string> = OPAQUE): unknown {
  if (Array.isArray(value)) return value.map((item) => snakeKeys(item, opaque));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) out[toSnake(key)] = opaque.has(key) ? inner : snakeKeys(inner, opaque);
  return out;
}

const OPAQUE = new Set(["payload", "metadata", "result"]);
