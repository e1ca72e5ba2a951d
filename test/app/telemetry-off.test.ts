import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

/**
 * Telemetry is free when off: a process that serves a turn without an OTLP endpoint loads no
 * OpenTelemetry module at all (the hooks import types only). The same script with telemetry
 * started shows that the check sees them when they are loaded.
 */
const script = (start: boolean) => `
import { createRequire } from "node:module";
const root = ${JSON.stringify(path.resolve("."))};
${start ? 'await (await import(root + "/src/app/telemetry-setup.ts")).startTelemetry({ headers: {}, serviceName: "t", metricIntervalMs: 60000 });' : ""}
const { createMemoryGraph } = await import(root + "/src/app/create-memory-graph.ts");
const { createServer } = await import(root + "/src/server/create-server.ts");
const memory = await createMemoryGraph({ backend: "memory", chatModel: null, classifierModel: null, summaryModel: null, logger: false });
const res = await createServer({ memory }).request("/v1/turns", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ user_id: "u", session_id: "s", message: "hi" }) });
await memory.close();
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) => file.includes("@opentelemetry"));
process.stdout.write(JSON.stringify({ status: res.status, loaded: loaded.length }) + "\\n");
process.exit(0);
`;

async function loadedModules(start: boolean): Promise<{ status: number; loaded: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-otel-off-"));
  const file = path.join(dir, "check.mts");
  fs.writeFileSync(file, script(start));
  try {
    const { stdout } = await run(process.execPath, ["--import", "tsx", file], { env: { ...process.env, LOG_LEVEL: "silent" } });
    return JSON.parse(stdout.trim().split("\n").at(-1)!) as { status: number; loaded: number };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("telemetry off", () => {
  it("loads no OpenTelemetry module while serving a turn", async () => {
    expect(await loadedModules(false)).toEqual({ status: 200, loaded: 0 });
  }, 60_000);

  it("(the check sees them once telemetry is started)", async () => {
    const on = await loadedModules(true);
    expect(on.status).toBe(200);
    expect(on.loaded).toBeGreaterThan(0);
  }, 60_000);
});
