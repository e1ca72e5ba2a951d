/**
 * `npm run bench:extraction`: how well the model-free path reads facts and event types from user
 * messages. Runs the keyword classifier (which carries the rule-based fact extractor) over the
 * labelled set in test/fixtures/extraction and prints JSON: precision and recall of facts overall,
 * per language and per key, and the share of messages whose event type matches, for the dev part
 * and the held-out part. `--show` also lists the dev cases that miss or add a fact (never the
 * held-out ones: that part is not tuned on).
 */
import { classifyByKeywords } from "../src/rules/keyword-classifier.js";
import { compare, loadLabelled, summarise, type LabelledMessage } from "./lib/fact-scoring.js";

function run(messages: readonly LabelledMessage[]) {
  return messages.map((message) => {
    const event = classifyByKeywords(message.text);
    return compare(message, { type: event.type, facts: event.attributeUpdates });
  });
}

const dev = run(loadLabelled("dev"));
const heldOut = run(loadLabelled("held-out"));
const report = { dev: summarise(dev), heldOut: summarise(heldOut), all: summarise([...dev, ...heldOut]) };
console.log(JSON.stringify(report, null, 2));
if (process.argv.includes("--show")) {
  for (const result of dev) {
    const wrongType = result.predicted.type !== result.message.type;
    if (result.missed.length === 0 && result.extra.length === 0 && !wrongType) continue;
    console.log(
      JSON.stringify({
        text: result.message.text,
        missed: result.missed,
        extra: result.extra,
        ...(wrongType ? { type: `${result.predicted.type} (want ${result.message.type})` } : {}),
      }),
    );
  }
}
