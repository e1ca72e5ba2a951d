import { spawn } from "node:child_process";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** `npm run studio`'s entry, run as npm runs it; resolves with its exit code and what it printed. */
function runStudio(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "scripts/studio.ts", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("exit", (code) => resolve({ code, output }));
  });
}

describe("npm run studio", () => {
  const holder = net.createServer();
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
    port = (holder.address() as net.AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

  it("exits 1 with a clear message when its port is taken, instead of waiting forever", async () => {
    const { code, output } = await runStudio(["--port", String(port)]);
    expect(code).toBe(1);
    expect(output).toContain(`port ${port} on 127.0.0.1 is in use`);
    expect(output).toContain(`npm run studio -- --port ${port + 1}`);
  });

  it("refuses a port that is not a port, with its usage", async () => {
    const { code, output } = await runStudio(["--port", "80a"]);
    expect(code).toBe(2);
    expect(output).toMatch(/--port must be a whole number/);
    expect(output).toContain("usage: npm run studio");
  });
});
