import { readFileSync } from "node:fs";

/** Per question, the value of each metric, keyed by question id (what `--per-question` writes). */
export type PerQuestion = Record<string, Record<string, number>>;

/** Wins, losses and ties of `a` against `b` on `metric`, over the questions both hold. */
export function pairedComparison(a: PerQuestion, b: PerQuestion, metric: string): { wins: number; losses: number; ties: number } {
  const out = { wins: 0, losses: 0, ties: 0 };
  for (const [id, values] of Object.entries(a)) {
    const x = values[metric];
    const y = b[id]?.[metric];
    if (x === undefined || y === undefined) continue;
    if (Math.abs(x - y) < 1e-9) out.ties += 1;
    else if (x > y) out.wins += 1;
    else out.losses += 1;
  }
  return out;
}

/** For each metric, this run's wins/losses/ties against another run's `--per-question` file. */
export function compareWithFile(current: PerQuestion, file: string, metrics: readonly string[]): Record<string, ReturnType<typeof pairedComparison>> {
  const before = JSON.parse(readFileSync(file, "utf8")) as PerQuestion;
  return Object.fromEntries(metrics.map((metric) => [metric, pairedComparison(current, before, metric)]));
}
