import type { Context } from "hono";
import { MemoryGraphError } from "../errors.js";
import { assertJsonBounds } from "../json-bounds.js";

/**
 * Reads a request's JSON body within `limitBytes`. Order: a declared Content-Length over the
 * limit is 413 before anything is read; a content type other than application/json is 415; a
 * body (chunked or not) that grows past the limit while read is 413; bytes that are not UTF-8 or
 * text that is not JSON is 400, and so is JSON over the structure bound or breaking the text rule
 * (`assertJsonBounds`), before anything else reads it; a body cut short (the client went away, or
 * sent less than its Content-Length) is 400 BODY_INCOMPLETE, logged as the caller's mistake. Never throws anything but a user `MemoryGraphError`.
 */
export async function readJsonBody(c: Context, limitBytes: number): Promise<unknown> {
  const declared = c.req.header("content-length");
  if (declared !== undefined && Number(declared) > limitBytes) throw tooLarge(limitBytes);
  const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/json") {
    throw new MemoryGraphError("UNSUPPORTED_MEDIA_TYPE", "the body must be application/json", { kind: "user" });
  }
  const text = await readText(c.req.raw, limitBytes);
  if (text.trim() === "") throw invalidJson("the body is empty; send a JSON object");
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    throw invalidJson("the body is not valid JSON");
  }
  return assertJsonBounds(value);
}

async function readText(request: Request, limitBytes: number): Promise<string> {
  if (!request.body) return "";
  const reader: ReadableStreamDefaultReader<Uint8Array> = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch((error: unknown) => {
      // The client went away mid-body (or sent less than its Content-Length): its mistake, not ours.
      throw new MemoryGraphError("BODY_INCOMPLETE", "the body ended before it was whole (the client went away?)", { kind: "user", cause: error });
    });
    if (done) break;
    size += value.byteLength;
    if (size > limitBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limitBytes);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw invalidJson("the body is not UTF-8 text");
  }
}

function tooLarge(limitBytes: number): MemoryGraphError {
  return new MemoryGraphError("PAYLOAD_TOO_LARGE", `the body is over the limit of ${limitBytes} bytes`, { kind: "user" });
}

function invalidJson(message: string): MemoryGraphError {
  return new MemoryGraphError("INVALID_JSON", message, { kind: "user" });
}
