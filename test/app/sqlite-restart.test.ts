import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { TurnResult } from "../../src/graph/nodes/build-candidate.js";

const tsx = path.resolve("node_modules/.bin/tsx");
const script = path.resolve("test/support/sqlite-turn.ts");

function turnInNewProcess(file: string, message: string): { result: TurnResult; window: string[] } {
  const out = execFileSync(tsx, [script, file, message], { encoding: "utf8", env: { ...process.env, OPENAI_API_KEY: "" } });
  return JSON.parse(out) as { result: TurnResult; window: string[] };
}

describe("the SQLite default across processes", () => {
  it("gives a second process the first one's history and long-term memory", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-restart-"));
    const file = path.join(dir, "nested", "memory.db");
    const first = turnInNewProcess(file, "My name is Anong and my email is anong@example.com");
    expect(first.result.status).toBe("OK");
    expect(first.result.candidate?.model).toBe("offline");
    const second = turnInNewProcess(file, "What is my email address?");
    expect(second.window).toContain("My name is Anong and my email is anong@example.com");
    expect(second.window.at(-2)).toBe("What is my email address?");
    const facts = second.result.memoryContext.recalled?.facts.map((f) => f.value) ?? [];
    expect(facts).toContain("anong@example.com");
    expect(second.result.candidate?.text).toContain("anong@example.com");
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});
