import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, expect, it, vi } from "vitest";
import { setLogLevel } from "../../../src/logger.js";

/**
 * docs/library.md's agent example, as it stands: at most ten lines marked `// + memory` (what an
 * existing createAgent agent gains memory with), and it runs, against this checkout's sources, to
 * the answer its comment promises. (test/package.slow.test.ts runs it against the packed package.)
 */
const ROOT = path.resolve(import.meta.dirname, "../../..");
const blocks = [...readFileSync(path.join(ROOT, "docs/library.md"), "utf8").matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? "");
const example = blocks.find((code) => code.includes('from "memory-graph/agent"')) ?? "";
// Under node_modules, so that the example's own imports (langchain, zod) resolve as in a project of yours.
mkdirSync(path.join(ROOT, "node_modules/.cache"), { recursive: true });
const dir = mkdtempSync(path.join(ROOT, "node_modules/.cache/mg-docs-example-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("adds memory to an agent in at most ten lines", () => {
  const added = example.split("\n").filter((line) => line.includes("// + memory"));
  expect(added.length).toBeGreaterThan(0);
  expect(added.length).toBeLessThanOrEqual(10);
});

it("runs, and the agent remembers across sessions", async () => {
  setLogLevel("silent");
  const code = example
    .replace('"memory-graph/agent"', JSON.stringify(pathToFileURL(path.join(ROOT, "src/entries/agent.ts")).href))
    .replace('"./data/memory.db"', JSON.stringify(path.join(dir, "memory.db")));
  const file = path.join(dir, "example.ts");
  writeFileSync(file, code);
  const printed = vi.spyOn(console, "log").mockImplementation(() => undefined);
  try {
    await import(pathToFileURL(file).href);
    expect(printed.mock.calls).toEqual([["Lisbon"]]);
  } finally {
    printed.mockRestore();
  }
});
