import type { Hono } from "hono";
import { METHOD_NAME_ALL } from "hono/router";

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/**
 * The methods `app` answers on `path`, in a fixed order, as its router matches them: a route of
 * that method, not middleware (registered for every method, under `METHOD_NAME_ALL`). HEAD is
 * allowed wherever GET is, since Hono answers HEAD with the GET route. Empty: no such path.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any env: only the routes are read
export function allowedMethods(app: Hono<any>, path: string): string[] {
  const routed = (method: string) =>
    app.router.match(method, path)[0].some(([[, route]]) => route.method !== METHOD_NAME_ALL);
  const allowed = new Set(METHODS.filter((method) => method !== "HEAD" && routed(method)));
  if (allowed.has("GET")) allowed.add("HEAD");
  return METHODS.filter((method) => allowed.has(method));
}
