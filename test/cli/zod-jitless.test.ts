import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";

describe("the service's zod setting (src/cli/zod-jitless.ts)", () => {
  it("turns zod's compiled object parsers off, and parses the same", async () => {
    const schema = () => z.object({ id: z.string(), n: z.number().int().optional(), tags: z.array(z.string()) }).strict();
    const inputs = [{ id: "a", tags: [] }, { id: "a", n: 1.5, tags: [] }, { id: 1, tags: ["x"] }, { id: "a", tags: [], extra: true }, null];
    const compiled = inputs.map((input) => schema().safeParse(input));
    await import("../../src/cli/zod-jitless.js");
    expect(z.config().jitless).toBe(true);
    expect(inputs.map((input) => schema().safeParse(input))).toEqual(compiled);
  });

  it("is imported by the service's entry before anything that builds a schema", () => {
    // zod reads the setting as each object schema is built, so it has to come first.
    const imports = fs.readFileSync("src/cli/start.ts", "utf8").match(/^import .*$/gm) ?? [];
    expect(imports.slice(0, 2)).toEqual(['import "dotenv/config";', 'import "./zod-jitless.js";']);
  });
});
