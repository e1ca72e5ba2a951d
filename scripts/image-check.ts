/**
 * Builds the container image's file system without a container engine, by performing the
 * Dockerfile's own steps in a clean temporary copy, then runs the result as the image would and
 * sends it one authenticated turn. The Dockerfile is the source: this script reads it and runs its
 * steps, so the two cannot drift. Prints one JSON line and exits non-zero on any failure.
 *
 *   npx tsx scripts/image-check.ts [--keep]
 *
 * How each instruction is performed (the image's `/…` paths live under the stage's folder):
 * - FROM node:<version>-slim: that Node version (scripts/node-runtime.sh) first on PATH, an empty
 *   stage; FROM <stage>: a copy of that stage.
 * - RUN: run by bash in the stage's WORKDIR with the stage's ENV; absolute paths under WORKDIR are
 *   mapped into the stage, `chown` is a no-op (the host has no `node` user). An `apt-get` step
 *   installs into the base image, so instead each package it names must be on this machine.
 * - COPY [--from=stage] [--chown=…]: files from the build context (the work tree's tracked and
 *   untracked-but-not-ignored files) or from an earlier stage. ARG/ENV/WORKDIR/EXPOSE/CMD as
 *   written; USER is noted (the service runs as the caller here).
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

interface Stage {
  name: string;
  root: string;
  workdir: string;
  env: Record<string, string>;
  cmd: string[] | null;
  user: string | null;
}

const repo = path.resolve(import.meta.dirname, "..");
const keep = process.argv.includes("--keep");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "mg-image-"));
const steps: string[] = [];

function fail(message: string): never {
  console.log(JSON.stringify({ ok: false, error: message, work, steps }));
  process.exit(1);
}

/** The Dockerfile's instructions: continuation lines joined, comments and blank lines dropped. */
function instructions(text: string): { op: string; args: string }[] {
  const joined = text.replace(/\\\n/g, " ").split("\n");
  return joined
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const space = line.search(/\s/);
      return { op: line.slice(0, space).toUpperCase(), args: line.slice(space + 1).trim() };
    });
}

function substitute(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, a: string | undefined, b: string | undefined) => vars[a ?? b ?? ""] ?? whole);
}

/** `k=v k2="v 2"` pairs (ENV and ARG). */
function pairs(args: string): [string, string][] {
  return [...args.matchAll(/(\w+)=("([^"]*)"|\S*)/g)].map((m) => [m[1] ?? "", m[3] ?? m[2] ?? ""]);
}

/** An image path (`/app/data`, or relative to WORKDIR) inside the stage's folder. */
function inStage(stage: Stage, imagePath: string): string {
  return path.join(stage.root, path.posix.resolve(stage.workdir, imagePath));
}

/** Rewrites absolute image paths under the WORKDIR's top folder so they land in the stage. */
function mapPaths(stage: Stage, text: string): string {
  const top = `/${stage.workdir.split("/")[1] ?? ""}`;
  if (top === "/") return text;
  return text.replace(new RegExp(`(^|[\\s=:"'])${top.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?=/|\\s|$|["'])`, "g"), `$1${stage.root}${top}`);
}

function run(command: string, cwd: string, env: Record<string, string>): void {
  const result = spawnSync("bash", ["-c", `set -e; chown() { :; }; ${command}`], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8" });
  if (result.status !== 0) fail(`RUN ${command} exited ${result.status}: ${(result.stderr || result.stdout).trim().split("\n").slice(-5).join(" | ")}`);
}

function contextFiles(): string[] {
  const listed = spawnSync("git", ["ls-files", "-co", "--exclude-standard", "-z"], { cwd: repo, encoding: "utf8" });
  if (listed.status !== 0) fail("git ls-files failed: the build context is the repository's work tree");
  return listed.stdout.split("\0").filter((file) => file !== "" && fs.existsSync(path.join(repo, file)));
}

function copy(stage: Stage, args: string, stages: Map<string, Stage>, context: string): void {
  const words = args.split(/\s+/);
  const from = words.find((w) => w.startsWith("--from="))?.slice("--from=".length);
  const rest = words.filter((w) => !w.startsWith("--"));
  const dest = rest.pop() ?? fail(`COPY ${args}: no destination`);
  const source = from ? (stages.get(from) ?? fail(`COPY --from=${from}: no such stage`)) : null;
  const target = inStage(stage, dest);
  const intoFolder = dest.endsWith("/") || rest.length > 1;
  for (const item of rest) {
    const src = source ? inStage(source, item) : path.join(context, item);
    if (!fs.existsSync(src)) fail(`COPY ${args}: ${item} does not exist`);
    const to = intoFolder ? path.join(target, path.basename(src)) : target;
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.cpSync(src, to, { recursive: true, verbatimSymlinks: true });
  }
}

/** An apt-get step installs into the base image; here each package it names must already be installed. */
function checkSystemPackages(command: string): void {
  const names = [...command.matchAll(/apt-get install ([^&;|]+)/g)].flatMap((m) => (m[1] ?? "").split(/\s+/).filter((w) => w && !w.startsWith("-")));
  const missing = names.filter((name) => spawnSync("dpkg", ["-s", name], { stdio: "ignore" }).status !== 0);
  if (missing.length > 0) fail(`the image installs ${missing.join(", ")} with apt-get; install them here (apt-get install ${missing.join(" ")})`);
  steps.push(`apt-get: ${names.join(", ")} present`);
}

function nodeRuntime(image: string): string {
  const match = /^node:(\d+\.\d+\.\d+)-slim$/.exec(image);
  if (!match) fail(`FROM ${image}: only node:<x.y.z>-slim base images can be performed here`);
  const result = spawnSync("bash", [path.join(repo, "scripts/node-runtime.sh"), match[1] ?? ""], { encoding: "utf8" });
  if (result.status !== 0) fail(`node ${match[1]}: ${result.stderr.trim()}`);
  return result.stdout.trim();
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts the final stage's CMD as the image would, sends one authenticated turn, then SIGTERM. */
async function smoke(stage: Stage, nodeDir: string): Promise<Record<string, unknown>> {
  if (!stage.cmd) fail("the final stage has no CMD");
  const port = await freePort();
  const key = randomBytes(12).toString("hex");
  const env = { ...process.env, ...stage.env, PATH: `${nodeDir}/bin:${process.env.PATH ?? ""}`, PORT: String(port), HOST: "127.0.0.1", API_KEYS: `ci:${key}`, LOG_LEVEL: "warn" };
  const [command, ...args] = stage.cmd.map((part) => mapPaths(stage, part));
  const child = spawn(command ?? "node", args, { cwd: inStage(stage, "."), env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const base = `http://127.0.0.1:${port}`;
  const started = Date.now();
  while (!(await fetch(`${base}/healthz`).then((r) => r.ok).catch(() => false))) {
    if (child.exitCode !== null || Date.now() - started > 60_000) fail(`the service did not come up: ${output.slice(-1500)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const startMs = Date.now() - started;
  const body = JSON.stringify({ user_id: "u1", session_id: "s1", message: "My name is Anong" });
  const anonymous = await fetch(`${base}/v1/turns`, { method: "POST", headers: { "content-type": "application/json" }, body });
  const turn = await fetch(`${base}/v1/turns`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` }, body });
  const answer = (await turn.json()) as { status?: string; candidate?: { text?: string } | null };
  child.kill("SIGTERM");
  const code = await Promise.race([exited, new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), 20_000))]);
  if (anonymous.status !== 401) fail(`a turn without a key answered ${anonymous.status}, not 401`);
  if (turn.status !== 200 || answer.status !== "OK" || !answer.candidate?.text) fail(`the turn answered ${turn.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  if (code !== 0) fail(`SIGTERM: the service ${code === "timeout" ? "did not exit within 20 s" : `exited ${code}`}: ${output.slice(-1500)}`);
  return { start_ms: startMs, turn_status: turn.status, unauthenticated_status: anonymous.status, exit_code: code };
}

async function main(): Promise<void> {
  const started = Date.now();
  const context = path.join(work, "context");
  for (const file of contextFiles()) {
    fs.mkdirSync(path.dirname(path.join(context, file)), { recursive: true });
    fs.copyFileSync(path.join(repo, file), path.join(context, file));
  }
  const args: Record<string, string> = {};
  const stages = new Map<string, Stage>();
  let stage: Stage | null = null;
  let nodeDir = "";
  for (const { op, args: raw } of instructions(fs.readFileSync(path.join(repo, "Dockerfile"), "utf8"))) {
    const text = substitute(raw, { ...args, ...stage?.env });
    if (op === "ARG") {
      for (const [name, value] of pairs(text)) args[name] ??= value;
      continue;
    }
    if (op === "FROM") {
      const [image = "", , name] = text.split(/\s+/);
      const index = stages.size;
      const root = path.join(work, `stage-${index}`);
      const parent = stages.get(image);
      if (parent) fs.cpSync(parent.root, root, { recursive: true, verbatimSymlinks: true });
      else {
        nodeDir = nodeRuntime(image);
        fs.mkdirSync(root, { recursive: true });
      }
      stage = { name: name ?? String(index), root, workdir: parent?.workdir ?? "/", env: { ...parent?.env }, cmd: null, user: null };
      stages.set(stage.name, stage);
      steps.push(`FROM ${text}`);
      continue;
    }
    if (!stage) fail(`${op} before FROM`);
    const nodeEnv = { PATH: `${nodeDir}/bin:${process.env.PATH ?? ""}`, npm_config_nodedir: nodeDir };
    switch (op) {
      case "WORKDIR":
        stage.workdir = path.posix.resolve(stage.workdir, text);
        fs.mkdirSync(inStage(stage, "."), { recursive: true });
        break;
      case "ENV":
        for (const [name, value] of pairs(text)) stage.env[name] = mapPaths(stage, value);
        break;
      case "COPY":
        copy(stage, text, stages, context);
        break;
      case "RUN":
        if (/\bapt-get\b/.test(text)) checkSystemPackages(text);
        else run(mapPaths(stage, text), inStage(stage, "."), { ...stage.env, ...nodeEnv });
        break;
      case "USER":
        stage.user = text;
        break;
      case "CMD":
        stage.cmd = JSON.parse(text) as string[];
        break;
      case "EXPOSE":
        break;
      default:
        fail(`${op}: not an instruction this check can perform; keep the Dockerfile to FROM/ARG/WORKDIR/ENV/COPY/RUN/USER/EXPOSE/CMD`);
    }
    if (op !== "EXPOSE") steps.push(`${op} ${text.slice(0, 80)}`);
  }
  if (!stage) fail("the Dockerfile has no FROM");
  const node = spawnSync(`${nodeDir}/bin/node`, ["--version"], { encoding: "utf8" }).stdout.trim();
  const result = await smoke(stage, nodeDir);
  console.log(JSON.stringify({ ok: true, node, user: stage.user, build_s: Math.round((Date.now() - started) / 1000), ...result, steps: steps.length }));
  if (!keep) fs.rmSync(work, { recursive: true, force: true });
}

await main();
