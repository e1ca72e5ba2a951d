import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, startService, waitFor } from "../support/service-process.js";

/**
 * `npm start` with a setting that cannot work ends fast — exit code 1 within 10 s — with exactly
 * one JSON line on stdout: severity ERROR, a stable code, the variable to fix and the cause, no
 * stack and no password.
 */
const PASSWORD = "pw-9f2c-do-not-log";
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mg-start-fail-"));
const aFile = path.join(dir, "plain-file");
fs.writeFileSync(aFile, "not a directory");
// Root writes through file modes, so as root a directory of procfs stands in for a read-only one.
const readOnlyDir = process.getuid?.() === 0 ? "/proc" : path.join(dir, "read-only");
if (readOnlyDir !== "/proc") fs.mkdirSync(readOnlyDir, { mode: 0o555 });

/** TCP servers that speak no known protocol: one accepts and never answers, one answers garbage. */
const servers: net.Server[] = [];
const sockets: net.Socket[] = [];
let silentPort = 0;
let garbagePort = 0;
let closedPort = 0;

async function listen(onSocket: (socket: net.Socket) => void): Promise<number> {
  const server = net.createServer((socket) => {
    socket.on("error", () => undefined);
    sockets.push(socket);
    onSocket(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as net.AddressInfo).port;
}

beforeAll(async () => {
  silentPort = await listen(() => undefined);
  garbagePort = await listen((socket) => socket.on("data", () => socket.write("HTTP/1.1 400 Bad Request\r\n\r\nnot for you\r\n")));
  closedPort = await freePort();
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  fs.rmSync(dir, { recursive: true, force: true });
});

const pgUrl = (port: () => number, db = "test") => () => `postgres://postgres:${PASSWORD}@127.0.0.1:${port()}/${db}`;
const redisUrl = (port: () => number) => () => `redis://default:${PASSWORD}@127.0.0.1:${port()}`;

interface Case {
  name: string;
  env: () => Record<string, string>;
  code: string;
  variable: string;
  cause: RegExp;
}

const cases: Case[] = [
  {
    name: "DATABASE_URL on a port that accepts and never answers",
    env: () => ({ MEMORY_BACKEND: "postgres", DATABASE_URL: pgUrl(() => silentPort)() }),
    code: "STORAGE_UNREACHABLE",
    variable: "DATABASE_URL",
    cause: /no answer within \d+ ms/,
  },
  {
    name: "DATABASE_URL on a port that answers another protocol",
    env: () => ({ MEMORY_BACKEND: "postgres", DATABASE_URL: pgUrl(() => garbagePort)() }),
    code: "STORAGE_UNREACHABLE",
    variable: "DATABASE_URL",
    cause: /127\.0\.0\.1:\d+\/test: \S/,
  },
  {
    name: "DATABASE_URL on a port nobody listens on",
    env: () => ({ MEMORY_BACKEND: "postgres", DATABASE_URL: pgUrl(() => closedPort)() }),
    code: "STORAGE_UNREACHABLE",
    variable: "DATABASE_URL",
    cause: /ECONNREFUSED/,
  },
  {
    name: "DATABASE_URL naming a database that does not exist",
    env: () => ({ MEMORY_BACKEND: "postgres", DATABASE_URL: pgUrl(() => 5432, "mg_no_such_database")() }),
    code: "STORAGE_UNREACHABLE",
    variable: "DATABASE_URL",
    cause: /"mg_no_such_database" does not exist/,
  },
  {
    name: "DATABASE_URL that does not parse",
    env: () => ({ MEMORY_BACKEND: "postgres", DATABASE_URL: `postgres://postgres:${PASSWORD}@127.0.0.1:99999/test` }),
    code: "CONFIG_INVALID",
    variable: "DATABASE_URL",
    cause: /must be a URL like postgres:\/\//,
  },
  {
    name: "DATABASE_URL that is not a URL",
    env: () => ({ MEMORY_BACKEND: "postgres", DATABASE_URL: `host=127.0.0.1 password=${PASSWORD}` }),
    code: "CONFIG_INVALID",
    variable: "DATABASE_URL",
    cause: /must be a URL/,
  },
  {
    name: "REDIS_URL on a port nobody listens on",
    env: () => ({ MEMORY_BACKEND: "redis", REDIS_URL: redisUrl(() => closedPort)(), SQLITE_PATH: path.join(dir, "redis-lt.db") }),
    code: "STORAGE_UNREACHABLE",
    variable: "REDIS_URL",
    cause: /ECONNREFUSED/,
  },
  {
    name: "REDIS_URL on a port that accepts and never answers",
    env: () => ({ MEMORY_BACKEND: "redis", REDIS_URL: redisUrl(() => silentPort)(), SQLITE_PATH: path.join(dir, "redis-lt.db") }),
    code: "STORAGE_UNREACHABLE",
    variable: "REDIS_URL",
    cause: /no answer within \d+ ms/,
  },
  {
    name: "SQLITE_PATH in a read-only directory",
    env: () => ({ SQLITE_PATH: path.join(readOnlyDir, "m.db") }),
    code: "SQLITE_PATH_UNUSABLE",
    variable: "SQLITE_PATH",
    cause: new RegExp(`${readOnlyDir}/m\\.db: .*writable`),
  },
  {
    name: "SQLITE_PATH under a file",
    env: () => ({ SQLITE_PATH: path.join(aFile, "m.db") }),
    code: "SQLITE_PATH_UNUSABLE",
    variable: "SQLITE_PATH",
    cause: new RegExp(`${aFile} is not a directory`),
  },
  {
    name: "SQLITE_PATH in a directory that cannot be created",
    env: () => ({ SQLITE_PATH: path.join(readOnlyDir, "sub", "m.db") }),
    code: "SQLITE_PATH_UNUSABLE",
    variable: "SQLITE_PATH",
    cause: new RegExp(`cannot create directory ${readOnlyDir}/sub`),
  },
  {
    name: "PORT that is not a number",
    env: () => ({ PORT: "eighty" }),
    code: "CONFIG_INVALID",
    variable: "PORT",
    cause: /PORT: /,
  },
  {
    name: "MEMORY_BACKEND that does not exist",
    env: () => ({ MEMORY_BACKEND: "mongo" }),
    code: "CONFIG_INVALID",
    variable: "MEMORY_BACKEND",
    cause: /MEMORY_BACKEND: /,
  },
];

async function failedStart(env: Record<string, string>) {
  const started = Date.now();
  const service = startService({ PORT: String(await freePort()), SQLITE_PATH: path.join(dir, "unused.db"), ...env });
  const timer = setTimeout(() => service.child.kill("SIGKILL"), 15_000);
  const code = await service.exited;
  clearTimeout(timer);
  return { code, ms: Date.now() - started, stdout: service.stdout(), output: service.output() };
}

describe("npm start with a setting that cannot work", () => {
  for (const { name, env, code, variable, cause } of cases) {
    it(`${name}: exit 1 within 10 s, one ERROR line (${code}, ${variable})`, async () => {
      const run = await failedStart(env());
      expect(run.code).toBe(1);
      expect(run.ms).toBeLessThan(10_000);
      const lines = run.stdout.split("\n").filter((line) => line.trim() !== "");
      expect(lines).toHaveLength(1);
      const line = JSON.parse(lines[0] ?? "") as Record<string, unknown>;
      expect(line).toMatchObject({ severity: "ERROR", code, variable });
      expect(String(line.error)).toMatch(cause);
      expect(line.stack).toBeUndefined();
      expect(run.output).not.toMatch(/^\s+at /m);
      expect(run.output).not.toContain(PASSWORD);
    }, 20_000);
  }

  it("adds the stack at LOG_LEVEL=debug, still on one line and without the password", async () => {
    const run = await failedStart({ LOG_LEVEL: "debug", MEMORY_BACKEND: "postgres", DATABASE_URL: pgUrl(() => closedPort)() });
    expect(run.code).toBe(1);
    const lines = run.stdout.split("\n").filter((line) => line.trim() !== "");
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] ?? "") as Record<string, unknown>;
    expect(line).toMatchObject({ severity: "ERROR", code: "STORAGE_UNREACHABLE", variable: "DATABASE_URL" });
    expect(String(line.stack)).toContain("    at ");
    expect(run.output).not.toContain(PASSWORD);
  }, 20_000);
});

describe("npm start on Cloud Run (K_SERVICE set)", () => {
  it("warns once that SQLite memory is lost with the instance, pointing at MEMORY_BACKEND=postgres", async () => {
    const port = await freePort();
    const service = startService({ PORT: String(port), K_SERVICE: "memory-graph", API_KEYS: "acme:k-123", SQLITE_PATH: path.join(dir, "cloud-run.db") });
    try {
      await waitFor(() => service.output().includes("server.listening"), 20_000);
      const warnings = service.logs().filter((line) => line.code === "MEMORY_EPHEMERAL");
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ severity: "WARNING", variable: "MEMORY_BACKEND" });
      expect(String(warnings[0]?.message)).toContain("MEMORY_BACKEND=postgres");
    } finally {
      service.child.kill("SIGKILL");
      await service.exited;
    }
  }, 30_000);
});
