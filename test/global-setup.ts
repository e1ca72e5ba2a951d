import { spawnSync } from "node:child_process";
import path from "node:path";

/**
 * Runs once before the tests: the local PostgreSQL and Redis must answer, PostgreSQL must offer
 * pgvector (built from Debian's source package where it lacks it), and Chromium must be installed
 * (from Debian, for the inspector's browser tests). Both scripts are idempotent and
 * take well under a second when everything is already there, so `npm test` on a fresh machine
 * brings up what it needs by itself; where it cannot, the run stops with one line saying what is
 * missing and how to get it. TEST_SKIP_SETUP=1 skips this (for a machine set up by other means).
 */
export default function setup(): void {
  if (process.env.TEST_SKIP_SETUP === "1") return;
  const run = (script: string, missing: string) => {
    const result = spawnSync("bash", [path.resolve("scripts", script)], { encoding: "utf8" });
    if (result.status === 0) return;
    const detail = `${result.stderr ?? ""}${result.stdout ?? ""}`.trim().split("\n").at(-1) ?? "";
    throw new Error(`test setup: ${missing} (${detail || `exit ${result.status}`}); run \`bash scripts/${script}\` as root, or set TEST_SKIP_SETUP=1`);
  };
  run("ensure-services.sh", "PostgreSQL at 127.0.0.1:5432 and Redis at 127.0.0.1:6379 must answer");
  run("install-pgvector.sh", "PostgreSQL lacks the pgvector extension and it could not be built");
  run("ensure-chromium.sh", "the inspector's browser tests need Chromium (Debian's chromium package)");
}
