import { z } from "zod";
import { MemoryGraphError } from "../errors.js";
import { normalizeFactKey, type FactUpdate } from "./facts.js";
import type { FactRecord } from "./records.js";

/**
 * A deployment's profile: the fact keys it cares about, declared as a zod object or a JSON Schema
 * object (`properties`, one per key, with its type and rules). With a profile, extraction asks for
 * exactly those keys, keeps only values its schema accepts, and the prompt shows the profile as
 * one block. Without one, every fact key is kept, as before.
 */

export interface Profile {
  /** The keys, normalised (`normalizeFactKey`), in the schema's order. */
  keys: string[];
  /** The keys with their descriptions, for the extraction prompt: "name: the user's name; city". */
  prompt: string;
  /** Of `updates`, those whose key is in the profile and whose value its schema accepts (keys normalised). */
  fit(updates: readonly FactUpdate[]): FactUpdate[];
  /** `facts` in the profile's order of keys (facts of other keys left out). */
  order(facts: readonly FactRecord[]): FactRecord[];
}

/** A profile from a zod object or a JSON Schema object; CONFIG_INVALID naming the problem otherwise. */
export function profileOf(schema: z.ZodObject | Record<string, unknown>): Profile {
  const object = schema instanceof z.ZodObject ? schema : fromJsonSchema(schema);
  const fields = new Map<string, z.ZodType>();
  const described: string[] = [];
  const shape: Record<string, z.ZodType> = object.shape;
  for (const [name, field] of Object.entries(shape)) {
    const key = normalizeFactKey(name);
    if (!key) throw invalid(`property "${name}" is not a usable fact key`);
    fields.set(key, field);
    const description = field.description ?? jsonDescription(schema, name);
    described.push(description ? `${key}: ${description}` : key);
  }
  if (fields.size === 0) throw invalid("it declares no properties");
  const keys = [...fields.keys()];
  return {
    keys,
    prompt: described.join("; "),
    fit: (updates) =>
      updates.flatMap((update) => {
        const key = normalizeFactKey(update.key);
        const field = fields.get(key);
        return field && accepts(field, update.value.trim()) ? [{ ...update, key }] : [];
      }),
    order: (facts) => keys.flatMap((key) => facts.filter((fact) => fact.key === key)),
  };
}

/** Whether `field` accepts the stored string `value`, as it is or read as JSON (a number, a boolean). */
function accepts(field: z.ZodType, value: string): boolean {
  if (field.safeParse(value).success) return true;
  try {
    return field.safeParse(JSON.parse(value)).success;
  } catch {
    return false;
  }
}

function fromJsonSchema(schema: Record<string, unknown>): z.ZodObject {
  let converted: z.ZodType;
  try {
    converted = z.fromJSONSchema(schema);
  } catch (error) {
    throw invalid(error instanceof Error ? error.message : String(error));
  }
  if (!(converted instanceof z.ZodObject)) throw invalid('it must be an object schema with "properties"');
  return converted;
}

function invalid(why: string): MemoryGraphError {
  return new MemoryGraphError("CONFIG_INVALID", `profile schema: ${why}`, { kind: "system", field: "profile" });
}

/** The description a JSON Schema gives property `name` (zod's conversion does not keep it). */
function jsonDescription(schema: z.ZodObject | Record<string, unknown>, name: string): string | undefined {
  if (schema instanceof z.ZodObject) return undefined;
  const property = (schema.properties as Record<string, { description?: unknown } | undefined> | undefined)?.[name];
  return typeof property?.description === "string" ? property.description : undefined;
}
