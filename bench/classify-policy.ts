/**
 * `npm run bench:classify-policy -- [--locomo <file>] [--longmemeval <file[.gz]>]`: what the `auto`
 * classification policy sends to the model, judged on data with answers. Transcript recall indexes
 * every message whatever the policy; what a turn the model does not see loses is the model's event
 * and facts, so the question is how many of the turns that hold evidence it still sees.
 *
 * - LoCoMo (default ../shared/bench/locomo/locomo-dev.json): every turn is a person's message; the
 *   evidence turns are those any question names.
 * - LongMemEval_S (default ../shared/bench/longmemeval/longmemeval-s-dev.json.gz): the user turns
 *   of each question's haystack, each distinct turn once; evidence turns are those marked
 *   `has_answer`.
 *
 * For each ask score (the default, 1, and higher: `modelNeedOf`'s `askScore`) it prints the share of
 * turns asked about and the share of evidence turns asked about, and at the default, per reason, and
 * of the evidence turns not asked about, the share the local classifier still keeps (an event at
 * the default importance threshold, or a fact), and the share of turns whose decision needed the
 * local classification (the others are asked about on their text alone). `model` is 1/1 and `rules` 0/0 by definition.
 * Prints one JSON object.
 */
import { flagsOrExit } from "../src/cli/args.js";
import { DEFAULT_LIMITS } from "../src/memory/limits.js";
import { DEFAULT_ASK_SCORE, modelNeedOf } from "../src/rules/classify-gate.js";
import type { ClassifiedEvent } from "../src/rules/event-schema.js";
import { classifyByKeywords } from "../src/rules/keyword-classifier.js";
import { loadLocomo } from "./lib/locomo-data.js";
import { loadLongMemEval } from "./lib/longmemeval-data.js";

const args = flagsOrExit(
  process.argv.slice(2),
  { locomo: { type: "string" }, longmemeval: { type: "string" } },
  "usage: npm run bench:classify-policy -- [--locomo <file>] [--longmemeval <file[.gz]>]",
);
const ASK_SCORES = [DEFAULT_ASK_SCORE, 2, 3, 4];

interface Turn {
  text: string;
  evidence: boolean;
  local: ClassifiedEvent;
}

const turnOf = (text: string, evidence: boolean): Turn => ({ text, evidence, local: classifyByKeywords(text) });
const share = (part: number, whole: number) => (whole === 0 ? null : Math.round((part / whole) * 1000) / 1000);

function locomoTurns(file: string): Turn[] {
  return loadLocomo(file).flatMap((conversation) => {
    const evidence = new Set(conversation.questions.flatMap((question) => question.evidence));
    return conversation.turns.map((turn) => turnOf(turn.text, evidence.has(turn.id)));
  });
}

/** Each distinct user turn once (haystacks share sessions); evidence when any question marks it. */
function longMemEvalTurns(file: string): Turn[] {
  const byText = new Map<string, boolean>();
  for (const question of loadLongMemEval(file)) {
    for (const turn of question.turns) if (turn.role === "user") byText.set(turn.text, (byText.get(turn.text) ?? false) || turn.evidence);
  }
  return [...byText].map(([text, evidence]) => turnOf(text, evidence));
}

/** Kept by the local classifier alone: an event it would save, or a fact it found. */
const keptLocally = (local: ClassifiedEvent) => local.importance >= DEFAULT_LIMITS.importanceThreshold || local.attributeUpdates.length > 0;

function report(turns: Turn[]) {
  const evidence = turns.filter((turn) => turn.evidence);
  let localNeeded = 0;
  const started = performance.now();
  const atDefault = turns.map((turn) =>
    modelNeedOf(turn.text, () => {
      localNeeded += 1;
      return turn.local;
    }),
  );
  const gateUs = ((performance.now() - started) * 1000) / turns.length;
  const reasons: Record<string, number> = {};
  for (const need of atDefault) reasons[need.reason] = (reasons[need.reason] ?? 0) + 1;
  const missed = evidence.filter((turn) => !modelNeedOf(turn.text, () => turn.local).ask);
  return {
    turns: turns.length,
    evidence_turns: evidence.length,
    trade_off: ASK_SCORES.map((askScore) => ({
      ask_score: askScore,
      default: askScore === DEFAULT_ASK_SCORE,
      share_of_turns_asked: share(turns.filter((turn) => modelNeedOf(turn.text, () => turn.local, askScore).ask).length, turns.length),
      share_of_evidence_turns_asked: share(evidence.filter((turn) => modelNeedOf(turn.text, () => turn.local, askScore).ask).length, evidence.length),
    })),
    reasons_at_default: reasons,
    evidence_not_asked: missed.length,
    evidence_not_asked_kept_locally: share(missed.filter((turn) => keptLocally(turn.local)).length, missed.length),
    // The gate's own regular expressions; the keyword classification it asks for is made beforehand here.
    gate_us_per_message: Math.round(gateUs * 10) / 10,
    share_needing_local_classification: share(localNeeded, turns.length),
  };
}

const locomo = report(locomoTurns(args.locomo ?? "../shared/bench/locomo/locomo-dev.json"));
const longmemeval = report(longMemEvalTurns(args.longmemeval ?? "../shared/bench/longmemeval/longmemeval-s-dev.json.gz"));
process.stdout.write(`${JSON.stringify({ targets: { share_of_turns_asked: "<= 0.6", share_of_evidence_turns_asked: ">= 0.95" }, locomo, longmemeval }, null, 2)}\n`);
