import { readFileSync } from "node:fs";
import type { Context } from "hono";
import { z } from "zod";
import { MemoryGraphError } from "../errors.js";
import type { ServerEnv } from "./context.js";
import { error } from "./responses.js";
import { defineRoute } from "./route.js";

/**
 * The memory inspector: a page (plain HTML, JS and CSS shipped in the package's `inspector/`
 * folder, nothing fetched from elsewhere) that reads and corrects memory through the API with the
 * key the person types in, so it sees exactly what that key's tenant may. The files hold no data
 * and are served without a key; when the inspector is off they answer 404.
 */

/** The folder beside `src/` and `dist/` (this file is one level below either). */
const FOLDER = new URL("../../inspector/", import.meta.url);

const TYPES: Record<string, string> = {
  "index.html": "text/html; charset=utf-8",
  "inspector.js": "text/javascript; charset=utf-8",
  "inspector-ui.js": "text/javascript; charset=utf-8",
  "inspector-views.js": "text/javascript; charset=utf-8",
  "inspector-entities.js": "text/javascript; charset=utf-8",
  "inspector.css": "text/css; charset=utf-8",
};

/** No script or style but the page's own files, no connection but this service. */
const POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const files = new Map<string, string>();

function fileText(name: string): string {
  let text = files.get(name);
  if (text === undefined) {
    text = readFileSync(new URL(name, FOLDER), "utf8");
    files.set(name, text);
  }
  return text;
}

/** Answers the file `name` (the page only at GET /inspector); 404 NOT_FOUND for anything else, or for all when `enabled` is false. */
function send(c: Context<ServerEnv>, name: string, enabled: boolean, asAsset: boolean): Response {
  if (!enabled) throw new MemoryGraphError("NOT_FOUND", "the inspector is off (INSPECTOR=on serves it)", { kind: "user" });
  const type = TYPES[name];
  if (type === undefined || (asAsset && name === "index.html")) throw new MemoryGraphError("NOT_FOUND", `no inspector file ${name}`, { kind: "user" });
  return c.body(fileText(name), 200, { "content-type": type, "content-security-policy": POLICY, "cache-control": "no-cache", "x-content-type-options": "nosniff" });
}

export const inspector = defineRoute({
  method: "get",
  path: "/inspector",
  tag: "health",
  summary: "The memory inspector page",
  description:
    "A page to see and correct a user's memory through this API (the key is typed into the page and sent as the bearer key of every call). " +
    "On unless NODE_ENV=production (or on Cloud Run); INSPECTOR=on|off decides.",
  responses: { 200: { description: "The page.", text: "text/html" }, 404: error("NOT_FOUND: the inspector is off.") },
  handle: (c, _input, deps) => send(c, "index.html", deps.inspector, false),
});

export const inspectorAsset = defineRoute({
  method: "get",
  path: "/inspector/:file",
  tag: "health",
  summary: "The inspector's scripts and style",
  // Any other name is a 404 (no such file), not a 400: the name is read as it is and looked up.
  params: { schema: z.object({ file: z.enum(["inspector.js", "inspector-ui.js", "inspector-views.js", "inspector-entities.js", "inspector.css"]) }), parse: (c) => c.req.param("file") ?? "" },
  responses: { 200: { description: "The file (text/javascript or text/css).", text: "text/javascript" }, 404: error("NOT_FOUND: no such file, or the inspector is off.") },
  handle: (c, { params: file }, deps) => send(c, file, deps.inspector, true),
});
