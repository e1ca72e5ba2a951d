import { detectAttributeUpdates, findEmails, findPhones } from "./attribute-detect.js";
import type { ClassifiedEvent, ClassifyContext, EventEntity, EventType } from "./event-schema.js";
import { KEYWORD_RULES, type KeywordRule, URGENT_PATTERN, typeOfIntent } from "./keyword-rules.js";
import { detectLanguage, extractAmount, extractEntities, hasPronoun } from "./text-signals.js";

const PROFILE_IMPORTANCE = 0.7;
const QUESTION_END = /\?\s*$/;

/**
 * How much of a long message the keyword classifier reads: its first `HEAD_CHARS` and last
 * `TAIL_CHARS` characters (a request is mostly stated before or after what it pastes). This bounds
 * the work of a turn; a cue, entity or amount only in between is not seen.
 */
export const CLASSIFIED_HEAD_CHARS = 3_000;
export const CLASSIFIED_TAIL_CHARS = 1_000;

/** The part of a long message a classifier reads: its first `CLASSIFIED_HEAD_CHARS` and last `CLASSIFIED_TAIL_CHARS` characters. */
export function classifiedPart(text: string): string {
  if (text.length <= CLASSIFIED_HEAD_CHARS + CLASSIFIED_TAIL_CHARS) return text;
  return `${text.slice(0, CLASSIFIED_HEAD_CHARS)}\n${text.slice(-CLASSIFIED_TAIL_CHARS)}`;
}

function bestRule(text: string, hasAmount: boolean): KeywordRule | undefined {
  let best: KeywordRule | undefined;
  for (const rule of KEYWORD_RULES) {
    if (rule.needsAmount && !hasAmount) continue;
    if (!rule.pattern.test(text)) continue;
    if (!best || rule.weight > best.weight) best = rule;
  }
  return best;
}

function withoutAll(text: string, values: readonly string[]): string {
  return values.reduce((acc, value) => acc.split(value).join(" "), text);
}

function round(value: number): number {
  return Math.round(Math.min(1, Math.max(0, value)) * 100) / 100;
}

/**
 * Classifies a message with deterministic keyword rules in English, Thai and romanised Hindi:
 * the fallback when no model is configured or the model fails. Same input, same output.
 *
 * A message with a pronoun ("usko", "it", "เขา") and no named entity of its own takes the
 * `context.activeEntities` (payload.resolvedFrom = "context"); a follow-up no rule matches
 * also takes `context.lastIntent`. The first amount goes to payload.amount (and
 * payload.currency when written). payload.classifier is always "keywords". Of a long message only
 * the first `CLASSIFIED_HEAD_CHARS` and last `CLASSIFIED_TAIL_CHARS` characters are read.
 */
export function classifyByKeywords(text: string, context: ClassifyContext = {}): ClassifiedEvent {
  const message = classifiedPart(text.trim());
  const language = detectLanguage(message);
  const attributeUpdates = detectAttributeUpdates(message);
  const ownName = attributeUpdates.find((update) => update.key === "name")?.value;
  const scrubbed = withoutAll(message, [...findPhones(message), ...findEmails(message)]);
  let entities: EventEntity[] = extractEntities(scrubbed, ownName ? [ownName] : []);
  const orderIds = entities.filter((e) => e.type === "order_id").map((e) => e.value);
  const amount = extractAmount(withoutAll(scrubbed, orderIds));
  const payload: Record<string, unknown> = { classifier: "keywords" };
  if (amount) Object.assign(payload, amount);

  const named = entities.filter((e) => e.type !== "language");
  const carried = context.activeEntities ?? [];
  const followUp = named.length === 0 && carried.length > 0 && hasPronoun(message);
  if (followUp) {
    entities = [...carried.map((e) => ({ type: e.type, value: e.value })), ...entities];
    payload.resolvedFrom = "context";
  }

  let type: EventType = "GENERIC_EVENT";
  let intent = message ? "general" : "empty";
  let importance = message ? 0.3 : 0;
  const rule = bestRule(scrubbed, amount !== undefined);
  const inherited = followUp && context.lastIntent ? typeOfIntent(context.lastIntent) : undefined;
  // A vague follow-up ("what about him?") continues the last intent rather than a generic one.
  if (rule && !(inherited && rule.weight <= 2)) {
    ({ type, intent, importance } = rule);
  } else if (inherited && context.lastIntent) {
    type = inherited;
    intent = context.lastIntent;
    importance = KEYWORD_RULES.find((r) => r.intent === intent)?.importance ?? importance;
  }
  if (attributeUpdates.length > 0) {
    // A stated fact is information worth keeping; a request that only sets how to be answered
    // ("please reply in Thai") stays a request, and is kept all the same.
    const onlyPreferences = attributeUpdates.every((update) => update.key.startsWith("preference."));
    const asksForLanguage = attributeUpdates.some((update) => update.key === "preference.language");
    if (onlyPreferences && (rule?.type === "REQUEST" || asksForLanguage)) {
      type = "REQUEST";
      intent = "preference_update";
    } else if (!rule || rule.weight < 3) {
      type = "INFORMATION";
      intent = "profile_update";
    }
    importance = Math.max(importance, PROFILE_IMPORTANCE);
  } else if (!rule && !followUp && amount && !QUESTION_END.test(message)) {
    // "Budget for the new shop is 40000 pounds": a stated figure is information.
    type = "INFORMATION";
    intent = "share_information";
    importance = KEYWORD_RULES.find((r) => r.intent === intent)?.importance ?? importance;
  }
  if (URGENT_PATTERN.test(message)) {
    payload.urgent = true;
    importance += 0.15;
  }
  if (amount) importance += 0.05;

  return { type, importance: round(importance), intent, entities, language, payload, attributeUpdates };
}
