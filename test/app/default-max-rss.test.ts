import { describe, expect, it } from "vitest";
import { defaultMaxRss, optionsFromEnv } from "../../src/app/options-from-env.js";
import { loadEnv } from "../../src/config.js";

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
/** A file system holding `files`; any other path is missing, as on a machine without that cgroup file. */
const reading = (files: Record<string, string>) => (file: string) => {
  const text = files[file];
  if (text === undefined) throw Object.assign(new Error(`ENOENT: ${file}`), { code: "ENOENT" });
  return text;
};

describe("RECALL_CACHE_MAX_RSS_MB's default", () => {
  it("is three quarters of a cgroup v2 memory limit (Cloud Run's --memory)", () => {
    expect(defaultMaxRss(reading({ "/sys/fs/cgroup/memory.max": "1073741824\n" }), 24 * GIB)).toBe(768 * MIB);
    expect(defaultMaxRss(reading({ "/sys/fs/cgroup/memory.max": String(512 * MIB) }), 24 * GIB)).toBe(384 * MIB);
  });

  it("reads cgroup v1's limit when v2's file is missing", () => {
    expect(defaultMaxRss(reading({ "/sys/fs/cgroup/memory/memory.limit_in_bytes": String(2 * GIB) }), 24 * GIB)).toBe(1536 * MIB);
  });

  it("is 400 MiB with no limit: none set ('max'), v1's huge number, no cgroup file, or an unreadable value", () => {
    const machine = 24 * GIB;
    expect(defaultMaxRss(reading({ "/sys/fs/cgroup/memory.max": "max\n" }), machine)).toBe(400 * MIB);
    expect(defaultMaxRss(reading({ "/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712" }), machine)).toBe(400 * MIB);
    expect(defaultMaxRss(reading({}), machine)).toBe(400 * MIB);
    expect(defaultMaxRss(reading({ "/sys/fs/cgroup/memory.max": "" }), machine)).toBe(400 * MIB);
  });

  it("gives way to the variable, 0 included (no check)", () => {
    expect(optionsFromEnv(loadEnv({ RECALL_CACHE_MAX_RSS_MB: "700" })).recallCache?.maxRss).toBe(700 * MIB);
    expect(optionsFromEnv(loadEnv({ RECALL_CACHE_MAX_RSS_MB: "0" })).recallCache?.maxRss).toBe(0);
    expect(optionsFromEnv(loadEnv({})).recallCache?.maxRss).toBe(defaultMaxRss());
  });

  it("refuses a value that is no whole number of MiB ≥ 0, naming the variable", () => {
    expect(() => loadEnv({ RECALL_CACHE_MAX_RSS_MB: "-1" })).toThrow(/RECALL_CACHE_MAX_RSS_MB/);
    expect(() => loadEnv({ RECALL_CACHE_MAX_RSS_MB: "lots" })).toThrow(/RECALL_CACHE_MAX_RSS_MB/);
  });
});
