import "dotenv/config";
import readline from "node:readline";
import { createMemoryGraph } from "../app/create-memory-graph.js";
import { optionsFromEnv } from "../app/options-from-env.js";
import { loadEnv, type Env, logLevelFromEnv } from "../config.js";
import { MemoryGraphError } from "../errors.js";
import { setLogLevel, setLogSink } from "../logger.js";
import { flagsOrExit } from "./args.js";
import { exitOnStartFailure } from "./fail.js";

/**
 * `npm run chat -- --tenant T --user U --session S`: a chat in the terminal on the configured
 * backend (SQLite by default). Reads lines from a terminal or a pipe and prints one reply per
 * line; logs go to stderr.
 */
const args = flagsOrExit(
  process.argv.slice(2),
  { tenant: { type: "string" }, user: { type: "string" }, session: { type: "string" }, verbose: { type: "boolean" } },
  "usage: npm run chat -- [--tenant T] [--user U] [--session S] [--verbose]",
);
setLogSink((line) => process.stderr.write(`${line}\n`));
// The library is quiet by default; an entry point logs at LOG_LEVEL (info unless set), a failed start included.
setLogLevel(logLevelFromEnv() ?? "info");
let env: Env;
try {
  env = loadEnv();
} catch (error) {
  exitOnStartFailure("chat.start_failed", error);
}
setLogLevel(args.verbose ? "debug" : env.LOG_LEVEL === "info" ? "warn" : env.LOG_LEVEL);
const scope = { tenantId: args.tenant ?? "default", userId: args.user ?? "local-user", sessionId: args.session ?? "cli" };
const memory = await createMemoryGraph(optionsFromEnv(env)).catch((error: unknown) => exitOnStartFailure("chat.start_failed", error));
const interactive = process.stdin.isTTY === true;
const rl = readline.createInterface({ input: process.stdin, output: interactive ? process.stdout : undefined, terminal: interactive });

if (interactive) {
  console.log(`memory-graph chat — tenant ${scope.tenantId}, user ${scope.userId}, session ${scope.sessionId}. Ctrl-D to quit.`);
  rl.setPrompt("you> ");
  rl.prompt();
}

let exitCode = 0;
for await (const line of rl) {
  try {
    const result = await memory.runTurn({ ...scope, message: line });
    if (result.status === "OK") console.log(interactive ? `bot> ${result.candidate?.text ?? ""}` : (result.candidate?.text ?? "").replace(/\n/g, " "));
    else if (result.status === "SKIP") console.log(interactive ? "(nothing to answer)" : "");
    else console.log(`[error] ${result.errors.map((e) => e.message).join("; ")}`);
  } catch (error) {
    exitCode = 1;
    const message = error instanceof MemoryGraphError ? `${error.code}: ${error.message}` : String(error);
    console.log(`[error] ${message}`);
  }
  if (interactive) rl.prompt();
}
await memory.close();
process.exitCode = exitCode;
