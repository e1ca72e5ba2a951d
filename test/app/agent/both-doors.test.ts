import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe } from "vitest";
import { itSharesMemoryWithTheGraph } from "./both-doors.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "mg-doors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the agent middleware and the graph on one SQLite file", () => {
  itSharesMemoryWithTheGraph(() => ({ backend: "sqlite", sqlitePath: path.join(dir, "memory.db") }));
});
