/**
 * `tsx scripts/profile-summary.ts --file <file.cpuprofile> [--top N]`: a V8 CPU profile (node --cpu-prof)
 * summed by self time per package (node_modules/<pkg>, src/<folder>, node internals) and per
 * function, the top N of each with their share of the sampled time. Prints JSON.
 * `--from`/`--to` (µs on the monotonic clock, as bench:stream-cost prints each phase's `window_us`
 * when BENCH_CPU_PROF is set) keep the samples of one phase. A sample counts at most
 * `MAX_SAMPLE_US`: on a busy machine the gap before a sample also holds time the process was not
 * running, which would otherwise land on whatever function happened to be sampled next.
 */
import fs from "node:fs";
import { flagsOrExit } from "../src/cli/args.js";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const args = flagsOrExit(
  process.argv.slice(2),
  { file: { type: "string" }, top: { type: "string" }, from: { type: "string" }, to: { type: "string" } },
  "usage: tsx scripts/profile-summary.ts --file <file.cpuprofile> [--top N] [--from µs] [--to µs]",
);
const file = args.file;
if (!file) throw new Error("--file names a .cpuprofile file");
const top = Number(args.top ?? 25);
const profile = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfUs = new Map<number, number>();
/** The most one sample counts (the default sampling interval is 1 ms). */
const MAX_SAMPLE_US = 1_500;
const from = Number(args.from ?? 0);
const to = Number(args.to ?? Infinity);
let at = profile.startTime;
profile.samples.forEach((id, i) => {
  const delta = profile.timeDeltas[i] ?? 0;
  at += delta;
  if (at >= from && at <= to) selfUs.set(id, (selfUs.get(id) ?? 0) + Math.min(delta, MAX_SAMPLE_US));
});

function packageOf(url: string, name: string): string {
  if (!url) return name.startsWith("(") ? name : "(native)";
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1]!;
  const source = /\/(src|dist|bench)\/([^/]+)/.exec(url);
  // Compiled (dist/) files count as the sources they come from.
  if (source) return `${source[1] === "dist" ? "src" : source[1]}/${source[2]!.replace(/\.(ts|js)$/, "")}`;
  if (url.startsWith("node:")) return url;
  return "(other)";
}

const packages = new Map<string, number>();
const functions = new Map<string, number>();
let total = 0;
for (const [id, us] of selfUs) {
  const node = byId.get(id)!;
  const { functionName, url, lineNumber } = node.callFrame;
  if (functionName === "(idle)" || functionName === "(program)") continue;
  total += us;
  const pkg = packageOf(url, functionName);
  packages.set(pkg, (packages.get(pkg) ?? 0) + us);
  const fn = `${functionName || "(anonymous)"} ${pkg}:${lineNumber + 1}`;
  functions.set(fn, (functions.get(fn) ?? 0) + us);
}
const ranked = (map: Map<string, number>) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => ({ name, ms: Math.round(us / 100) / 10, share: Math.round((us / total) * 1000) / 10 }));
process.stdout.write(`${JSON.stringify({ busy_ms: Math.round(total / 1000), packages: ranked(packages), functions: ranked(functions) }, null, 2)}\n`);
