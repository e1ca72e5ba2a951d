/**
 * One process's turn on a SQLite file, for the restart test: prints the turn result and the
 * session window as JSON on stdout. Usage: tsx test/support/sqlite-turn.ts <file> <message>
 */
import { createMemoryGraph } from "../../src/app/create-memory-graph.js";
import { setLogLevel } from "../../src/logger.js";
import { textOf } from "../../src/messages/message-meta.js";

setLogLevel("silent");
const [file, message] = process.argv.slice(2);
const scope = { tenantId: "acme", userId: "u1", sessionId: "s1" };
const graph = await createMemoryGraph({ backend: "sqlite", sqlitePath: file, chatModel: null });
const result = await graph.runTurn({ ...scope, message });
const state = await graph.sessionState(scope);
process.stdout.write(JSON.stringify({ result, window: state?.messages.map(textOf) ?? [] }));
await graph.close();
