import { detectLanguage } from "../rules/text-signals.js";

/**
 * The first JSON object in a model's text answer (code fences and prose around it are
 * ignored), or undefined when there is none.
 */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  const unfenced = text.replace(/```(?:json)?/gi, "");
  const start = unfenced.indexOf("{");
  const end = unfenced.lastIndexOf("}");
  if (start < 0 || end <= start) return undefined;
  try {
    const value: unknown = JSON.parse(unfenced.slice(start, end + 1));
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A model's list of pairs as objects with `kindKey` and `value`: a compact "kind:value" string is
 * split at its first colon (one without a colon is left for the schema to reject); a number or
 * boolean value becomes a string (models often give a phone number or an amount as a number).
 */
function pairs(value: unknown, kindKey: "type" | "key"): unknown {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return value;
  return value.map((item: unknown) => {
    const colon = typeof item === "string" ? item.indexOf(":") : -1;
    if (typeof item === "string" && colon > 0) return { [kindKey]: item.slice(0, colon).trim(), value: item.slice(colon + 1).trim() };
    if (!item || typeof item !== "object") return item;
    const record = item as Record<string, unknown>;
    const v = record.value;
    return typeof v === "number" || typeof v === "boolean" ? { ...record, value: String(v) } : record;
  });
}

/**
 * A model's "subject|relation|object" strings as objects; a string that is not three non-empty
 * parts is left out (relations are an extra: one badly written does not cost the classification).
 */
function triples(value: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) return value;
  return value.flatMap((item: unknown) => {
    if (item && typeof item === "object") return [item];
    if (typeof item !== "string") return [];
    const parts = item.split("|").map((part) => part.trim());
    return parts.length === 3 && parts.every((part) => part !== "") ? [{ from: parts[0], type: parts[1], to: parts[2] }] : [];
  });
}

/**
 * Light, predictable clean-up of a model's classification before schema validation: the type
 * upper-cased, a numeric-string importance read as a number and clamped to 0..1, "kind:value"
 * entities and attribute updates made objects, "subject|relation|object" relations made objects, missing lists and payload made empty, a missing
 * language detected from `text`. Anything else wrong is left for the schema to reject.
 */
export function normalizeEventCandidate(candidate: unknown, text: string): unknown {
  if (!candidate || typeof candidate !== "object" || Array.isArray(candidate)) return candidate;
  const c = { ...(candidate as Record<string, unknown>) };
  if (typeof c.type === "string") c.type = c.type.trim().toUpperCase().replace(/[\s-]+/g, "_");
  const importance = typeof c.importance === "string" && c.importance.trim() !== "" ? Number(c.importance) : c.importance;
  c.importance = typeof importance === "number" && Number.isFinite(importance) ? Math.min(1, Math.max(0, importance)) : importance;
  c.entities = pairs(c.entities, "type");
  c.attributeUpdates = pairs(c.attributeUpdates, "key");
  c.relations = triples(c.relations);
  if (c.relations === undefined) delete c.relations;
  if (c.payload === undefined || c.payload === null) c.payload = {};
  if (c.language === undefined || c.language === null || c.language === "") c.language = detectLanguage(text);
  return c;
}
