import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";

/**
 * Starting `src/cli/start.ts` (what `npm start` runs) as a child process, for service tests. The
 * child is node itself with tsx's loader, not the `tsx` CLI: that CLI runs the script in a
 * grandchild, which a SIGKILL of the child would leave running.
 */
const entry = path.resolve("src/cli/start.ts");

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

export function startService(env: Record<string, string>) {
  const child = spawn(process.execPath, ["--import", "tsx", entry], {
    env: { ...process.env, OPENAI_API_KEY: "", OPENAI_BASE_URL: "", API_KEYS: "", NODE_ENV: "", K_SERVICE: "", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  /** `output` is stdout and stderr as they came; `stdout` alone is where log lines go, and `logs` parses them. */
  const logs = () =>
    stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return { child, exited, output: () => output, stdout: () => stdout, logs };
}

export async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
