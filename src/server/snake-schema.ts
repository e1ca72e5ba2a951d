import { z, type ZodType } from "zod";
import { toSnake } from "./case.js";

/**
 * The HTTP API's schemas, derived from the core's: the same schema with every object key in
 * snake_case, every other rule (bounds, id checks, enums, strictness, the time normalisation,
 * descriptions) the core's own, so the rules are defined once. A record (caller data, such as an
 * event's payload) is taken whole: its keys are never re-cased.
 */

/** Where a derived schema is used: parsing a request, or checking and documenting an answer. */
export interface SnakeCasing {
  /**
   * The request form of `schema`: snake_case keys in, and out what the core's parse gives (its
   * camelCase keys, its checks passed), so a request is checked once, where it arrives.
   */
  request: <T extends ZodType>(schema: T) => ZodType<z.output<T>>;
  /**
   * The answer form of `schema`: snake_case keys in and out (its JSON Schema the same in a
   * request and an answer). An object's own checks are the core's, over camelCase keys: they
   * guard what the library takes, and an answer is made by the library, so they are left out.
   */
  answer: (schema: ZodType) => ZodType;
}

/**
 * Derives the schemas of one API document. Each core schema gets one derived schema per form, so
 * that a part two schemas share (a session in a list and in an export) is one component; `ids`
 * names the derived forms of core schemas as OpenAPI components.
 */
export function snakeCasing(ids: ReadonlyMap<ZodType, string> = new Map()): SnakeCasing {
  const made = { request: new Map<ZodType, ZodType>(), answer: new Map<ZodType, ZodType>() };

  function derive(schema: ZodType, form: keyof typeof made): ZodType {
    const known = made[form].get(schema);
    if (known) return known;
    const id = ids.get(schema);
    const meta = { ...z.globalRegistry.get(schema), ...(id ? { id } : {}) };
    const derived = shapeOf(schema, form, <S extends ZodType>(shaped: S): S => (Object.keys(meta).length > 0 ? shaped.meta(meta) : shaped));
    made[form].set(schema, derived);
    return derived;
  }

  /** `schema` in snake_case; `describe` gives a derived schema the core schema's metadata. */
  function shapeOf(schema: ZodType, form: keyof typeof made, describe: <S extends ZodType>(derived: S) => S): ZodType {
    if (schema instanceof z.ZodOptional) return describe(derive(schema.unwrap() as ZodType, form).optional());
    if (schema instanceof z.ZodNullable) return describe(derive(schema.unwrap() as ZodType, form).nullable());
    if (schema instanceof z.ZodArray) return describe(z.array(derive(schema.element as ZodType, form)).check(...checksOf<unknown[]>(schema)));
    if (schema instanceof z.ZodObject) {
      const keys = Object.keys(schema.shape);
      const shape = Object.fromEntries(keys.map((key) => [toSnake(key), derive(schema.shape[key] as ZodType, form)]));
      // Described before the keys are renamed, so that both forms render the same JSON Schema.
      const object = describe(schema.def.catchall ? z.object(shape).catchall(schema.def.catchall) : z.object(shape));
      if (form === "answer") return object;
      const camelOf = new Map(keys.map((key) => [toSnake(key), key]));
      const camelCased = object.transform((value) => Object.fromEntries(Object.entries(value).map(([key, inner]) => [camelOf.get(key) ?? key, inner])));
      const checks = checksOf<Record<string, unknown>>(schema);
      return checks.length > 0 ? camelCased.check(...checks) : camelCased;
    }
    if (LEAVES.has(schema.def.type)) return schema;
    // A record's keys are caller data (an event's payload): never re-cased.
    if (schema instanceof z.ZodRecord && LEAVES.has((schema.valueType as ZodType).def.type)) return schema;
    throw new Error(`snakeCasing: no rule for a zod ${schema.def.type}; add one before an API schema uses it`);
  }

  return {
    request: <T extends ZodType>(schema: T) => derive(schema, "request") as ZodType<z.output<T>>,
    answer: (schema) => derive(schema, "answer"),
  };
}

/** Schemas that hold no object keys: taken as they are. */
const LEAVES = new Set<string>(["string", "number", "boolean", "enum", "literal", "unknown"]);

function checksOf<T>(schema: ZodType): z.core.$ZodCheck<T>[] {
  return (schema.def.checks ?? []) as z.core.$ZodCheck<T>[];
}
