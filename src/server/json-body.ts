import type { Context } from "hono";
import { MemoryGraphError } from "../errors.js";
import { assertJsonBounds } from "../json-bounds.js";

/**
 * Reads a request's JSON body; its size was held to the route's limit before (Hono's `bodyLimit`,
 * see route.ts). A content type other than application/json is 415; bytes that are not UTF-8 or
 * text that is not JSON is 400, and so is JSON over the structure bound or breaking the text rule
 * (`assertJsonBounds`), before anything else reads it; a body cut short (the client went away, or
 * sent less than its Content-Length) is 400 BODY_INCOMPLETE, logged as the caller's mistake.
 * Never throws anything but a user `MemoryGraphError`.
 */
export async function readJsonBody(c: Context): Promise<unknown> {
  const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") {
    throw new MemoryGraphError("UNSUPPORTED_MEDIA_TYPE", "the body must be application/json", { kind: "user" });
  }
  const bytes = await c.req.arrayBuffer().catch((error: unknown) => {
    // The client went away mid-body (or sent less than its Content-Length): its mistake, not ours.
    throw new MemoryGraphError("BODY_INCOMPLETE", "the body ended before it was whole (the client went away?)", { kind: "user", cause: error });
  });
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalidJson("the body is not UTF-8 text");
  }
  if (text.trim() === "") throw invalidJson("the body is empty; send a JSON object");
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw invalidJson("the body is not valid JSON");
  }
  return assertJsonBounds(value);
}

function invalidJson(message: string): MemoryGraphError {
  return new MemoryGraphError("INVALID_JSON", message, { kind: "user" });
}
