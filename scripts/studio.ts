import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { flagsOrExit } from "../src/cli/args.js";

/**
 * `npm run studio [-- --port 2024] [--host 127.0.0.1]`: the LangGraph dev server on this graph.
 * The port is checked first: the dev server itself, finding it taken, logs EADDRINUSE and keeps
 * watching files forever, so a busy port ends here instead, with a message and exit code 1.
 */
const usage = "usage: npm run studio [-- --port N (default 2024)] [--host ADDRESS (default 127.0.0.1)]";
const flags = flagsOrExit(process.argv.slice(2), { port: { type: "string" }, host: { type: "string" } }, usage);
const host = flags.host ?? "127.0.0.1";
const port = Number(flags.port ?? "2024");
if (!Number.isInteger(port) || port < 1 || port > 65_535) {
  console.error(`--port must be a whole number from 1 to 65535, not ${JSON.stringify(flags.port)}\n${usage}`);
  process.exit(2);
}

const free = await new Promise<true | string>((resolve) => {
  const probe = net.createServer();
  probe.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  probe.listen(port, host, () => probe.close(() => resolve(true)));
});
if (free !== true) {
  const why = free === "EADDRINUSE" ? "is in use" : `cannot be opened (${free})`;
  console.error(`npm run studio: port ${port} on ${host} ${why}; choose another: npm run studio -- --port ${port + 1}`);
  process.exit(1);
}

const cli = path.resolve("node_modules", ".bin", "langgraphjs");
const child = spawn(cli, ["dev", "--host", host, "--port", String(port), "--no-browser"], { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
