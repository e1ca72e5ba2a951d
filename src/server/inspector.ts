import { readFileSync } from "node:fs";
import type { Context } from "hono";
import { MemoryGraphError } from "../errors.js";
import type { ServerEnv } from "./context.js";
import type { RouteHandlers } from "./routes.js";

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

/** The page (GET /inspector) and its script and style (GET /inspector/{file}); 404 NOT_FOUND for anything else, or for all when `enabled` is false. */
export function inspectorHandlers(enabled: boolean): Pick<RouteHandlers, "inspector" | "inspectorAsset"> {
  const send = (c: Context<ServerEnv>, name: string, asAsset: boolean) => {
    if (!enabled) throw new MemoryGraphError("NOT_FOUND", "the inspector is off (INSPECTOR=on serves it)", { kind: "user" });
    const type = TYPES[name];
    if (type === undefined || (asAsset && name === "index.html")) throw new MemoryGraphError("NOT_FOUND", `no inspector file ${name}`, { kind: "user" });
    return c.body(fileText(name), 200, { "content-type": type, "content-security-policy": POLICY, "cache-control": "no-cache", "x-content-type-options": "nosniff" });
  };
  return {
    inspector: (c) => send(c, "index.html", false),
    inspectorAsset: (c) => send(c, c.req.param("file") ?? "", true),
  };
}
