/**
 * Writes the HTTP API's OpenAPI document to openapi.json at the project root (what GET
 * /openapi.json serves). test/server/openapi.test.ts fails when the committed file is stale.
 *
 *   npm run openapi
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openApiJson } from "../src/server/openapi.js";

const target = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "openapi.json");
writeFileSync(target, openApiJson());
process.stdout.write(`wrote ${path.relative(process.cwd(), target) || target}\n`);
