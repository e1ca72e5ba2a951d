import fs from "node:fs";
import path from "node:path";
import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";
import { describe, expect, it } from "vitest";
import { openApiJson } from "../../src/server/openapi.js";

describe("the client's types", () => {
  it("are generated from the service's current OpenAPI document (after changing a route or schema: `npm run client:types`)", async () => {
    // The document the server builds from its route table now, not the committed openapi.json: a
    // route changed without regenerating either file fails here (and in openapi.test.ts).
    const generated = COMMENT_HEADER + astToString(await openapiTS(JSON.parse(openApiJson()) as Parameters<typeof openapiTS>[0]));
    const committed = fs.readFileSync(path.resolve("src/client/api-types.ts"), "utf8");
    expect(committed === generated, "src/client/api-types.ts is stale: run `npm run client:types` and commit it").toBe(true);
  });
});
