import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseFlags } from "../../src/cli/args.js";

const CHAT_FLAGS = { tenant: { type: "string" }, user: { type: "string" }, session: { type: "string" }, verbose: { type: "boolean" } } as const;

describe("parseFlags", () => {
  it("reads string and boolean flags, in both spellings", () => {
    expect(parseFlags(["--user", "u1", "--session=s1", "--verbose"], CHAT_FLAGS)).toEqual({ user: "u1", session: "s1", verbose: true });
    expect(parseFlags([], CHAT_FLAGS)).toEqual({});
  });

  it.each([
    { argv: ["--usr", "u1"], why: /Unknown option '--usr'/ },
    { argv: ["--user"], why: /argument missing/ },
    { argv: ["--user", "--session", "s1"], why: /ambiguous/ },
    { argv: ["u1"], why: /Unexpected argument 'u1'/ },
    { argv: ["--verbose=yes"], why: /does not take an argument/ },
  ])("rejects $argv with USAGE", ({ argv, why }) => {
    expect(() => parseFlags(argv, CHAT_FLAGS)).toThrow(why);
    expect(() => parseFlags(argv, CHAT_FLAGS)).toThrow(expect.objectContaining({ code: "USAGE" }));
  });
});

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-cli-flags-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Runs a CLI entry point with `input` on stdin; resolves with its exit code and output. */
function runCli(entry: string, argv: string[], input = "") {
  const child = spawn(process.execPath, ["--import", "tsx", path.resolve(entry), ...argv], {
    env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", MEMORY_BACKEND: "sqlite", SQLITE_PATH: path.join(dir, "m.db"), LOG_LEVEL: "info" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
}

describe("CLI entry points refuse flags they do not know", () => {
  it("npm run chat -- --usr u1: exit 2 with the usage line, no turn run", async () => {
    const run = await runCli("src/cli/chat.ts", ["--usr", "u1"], "hello\n");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Unknown option '--usr'");
    expect(run.stderr).toContain("usage: npm run chat");
    expect(run.stdout).toBe("");
    expect(fs.existsSync(path.join(dir, "m.db"))).toBe(false);
  }, 30_000);

  it("npm run chat -- --user (no value): exit 2 with the usage line", async () => {
    const run = await runCli("src/cli/chat.ts", ["--user"], "hello\n");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("usage: npm run chat");
  }, 30_000);

  it("npm run gc -- --kep 3: exit 2 with the usage line", async () => {
    const run = await runCli("src/cli/gc.ts", ["--kep", "3"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("usage: npm run gc");
    expect(run.stdout).toBe("");
  }, 30_000);
});
