import type { Context } from "hono";
import type { z, ZodObject } from "zod";
import { invalidInput } from "../errors.js";
import { assertText } from "../json-bounds.js";
import { parseRequest } from "./request-schemas.js";

/**
 * Ids from the URL, decoded strictly. Hono decodes parameters leniently: an escape that is not
 * UTF-8 (`%ED%A0%80`, a lone surrogate written out as if it were a character) is kept as typed,
 * so `/v1/users/a%ED%A0%80b` would name the user "a%ED%A0%80b", whom `a%25ED%25A0%2580b` names
 * too. Here such an escape is the caller's mistake, reported under the parameter's field.
 */

function decodeStrictly(field: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw invalidInput(field, "must be percent-encoded UTF-8 of well-formed Unicode", "INVALID_ID");
  }
}

/**
 * The path parameters of the matched route that `schema` names, each decoded strictly and checked
 * by `schema`; a bad one is INVALID_ID under its name.
 */
export function pathParams<S extends ZodObject>(c: Context, schema: S): z.output<S> {
  const names = c.req.routePath.split("/");
  // Routing splits the path at the same slashes: escapes such as %2F are never decoded before it.
  const segments = new URL(c.req.url).pathname.split("/");
  const raw = Object.fromEntries(
    Object.keys(schema.shape).map((name) => {
      const index = names.indexOf(`:${name}`);
      const segment = index < 0 ? undefined : segments[index];
      if (segment === undefined) throw new Error(`route ${c.req.routePath} has no parameter :${name}`);
      return [name, decodeStrictly(name, segment)];
    }),
  );
  return parseRequest(schema, raw, "path", "INVALID_ID");
}

/**
 * The query parameters, decoded strictly (`+` is a space); the first of repeated names wins, as in
 * Hono; a value with NUL is INVALID_TEXT, as in a body. Own properties only, so a name such as `__proto__` is an unknown field, not a prototype.
 */
export function queryOf(c: Context): Record<string, string> {
  const params = new Map<string, string>();
  for (const pair of new URL(c.req.url).search.slice(1).split("&")) {
    if (pair === "") continue;
    const equals = pair.indexOf("=");
    const [rawName, rawValue] = equals < 0 ? [pair, ""] : [pair.slice(0, equals), pair.slice(equals + 1)];
    const name = decodeStrictly("query", rawName.replace(/\+/g, " "));
    const value = assertText(decodeStrictly(name, rawValue.replace(/\+/g, " ")), name);
    if (name !== "" && !params.has(name)) params.set(name, value);
  }
  return Object.fromEntries(params);
}
