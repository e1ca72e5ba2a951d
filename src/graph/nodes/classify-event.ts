import { AIMessage } from "@langchain/core/messages";
import type { LangGraphRunnableConfig } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { messageOf } from "../../errors.js";
import { log } from "../../logger.js";
import { annotateSpan } from "../../telemetry.js";
import { withMeta } from "../../messages/message-meta.js";
import { saveClassified } from "../../memory/classified-writes.js";
import { USER_NODE } from "../../memory/entities/entity-graph.js";
import { extractionOfClassified } from "../../memory/entities/model-extraction.js";
import { requireStore } from "../../memory/store-io.js";
import { boundedInTime } from "../../rules/facts/expiry.js";
import { classifyByKeywords } from "../../rules/keyword-classifier.js";
import { classifyWithModel } from "../../models/structured.js";
import { isTransientError, withRetry } from "../../models/chat-model.js";
import { planClassification, type ClassifyPolicy } from "../../rules/classify-gate.js";
import { inModelSpan, modelNameOf } from "../../models/model-span.js";
import { usageOfReply, type ModelUsage } from "../../models/usage.js";
import { NODE } from "../state/node-names.js";
import type { EventRecord } from "../../memory/records.js";
import type { ClassifiedEvent } from "../../rules/event-schema.js";
import type { MemoryState, MemoryUpdate, TurnEvent, TurnInfo } from "../state/state.js";
import type { NodeError } from "../reducers.js";
import { classifierOf, retryOptions, type GraphDeps } from "./deps.js";
import { humanForNode, scopeOfState, turnOf } from "./turn.js";

/**
 * classify_event: types the user's message as the classification policy says (see
 * `createClassifier`), then keeps what it found (see `keepClassification`): the node is the two,
 * back to back, in the turn. The agent middleware runs the same two apart, the first off the
 * session's lock.
 */
export function createClassifyEventNode(deps: GraphDeps) {
  const classify = createClassifier(deps);
  return async function classifyEvent(state: MemoryState, config: LangGraphRunnableConfig): Promise<MemoryUpdate> {
    const store = requireStore(config);
    return keepClassification(deps, store, state, await classify(state));
  };
}

/** What classifying a turn's message found, before anything of it is written. */
export interface Classification {
  classified: ClassifiedEvent;
  classifiedBy: TurnEvent["classifiedBy"];
  classifyPolicy: ClassifyPolicy;
  classifyReason: string;
  fallbackReason: string | null;
  errors: NodeError[];
  usage: ModelUsage[];
}

/**
 * Classifies the turn's user message as the policy says (`deps.classify`: the model with a
 * structured schema, or the keyword classifier — under `auto`, the model only for a message the
 * gate says may hold more than the rules find; see `planClassification`), the keyword classifier
 * also when the model fails or its answer does not parse (recorded as the fallback). Reads the
 * session's last intent and active entities from `state`; writes nothing. The policy, who
 * classified and why go on the current span.
 */
export function createClassifier(deps: GraphDeps) {
  const model = classifierOf(deps);
  const policy = deps.classify ?? "auto";
  return async function classify(state: MemoryState): Promise<Classification> {
    const turn = turnOf(state);
    const context = { lastIntent: state.session.lastIntent ?? undefined, activeEntities: state.session.activeEntities, profile: deps.profile?.prompt };
    const plan = planClassification(policy, model !== null, turn.text, context);
    let classified = plan.local;
    let classifiedBy: TurnEvent["classifiedBy"] = "keywords";
    let fallbackReason: string | null = model || policy === "rules" ? null : "no_model";
    const errors: NodeError[] = [];
    const usage: ModelUsage[] = [];
    if (model && plan.ask) {
      try {
        const ask = () =>
          withRetry(() => classifyWithModel(model, turn.text, context, (reply) => usage.push(...usageOfReply(NODE.classifyEvent, reply))), {
            ...retryOptions(deps),
            isRetryable: isTransientError,
          });
        classified = await inModelSpan(NODE.classifyEvent, modelNameOf(model, deps.modelName), ask, () => usage);
        classifiedBy = "model";
      } catch (error) {
        fallbackReason = messageOf(error);
        errors.push({ node: NODE.classifyEvent, code: "CLASSIFIER_FALLBACK", message: fallbackReason, turnId: turn.id });
        log.warn("classifier_fallback", { reason: fallbackReason });
      }
    }
    classified ??= classifyByKeywords(turn.text, context);
    annotateSpan({ "memory_graph.classify.policy": policy, "memory_graph.classify.by": classifiedBy, "memory_graph.classify.reason": plan.reason });
    return { classified, classifiedBy, classifyPolicy: policy, classifyReason: plan.reason, fallbackReason, errors, usage };
  };
}

/**
 * Keeps what `classification` found for the turn in `state`: the event when its importance reaches
 * the threshold and the attribute updates as superseding facts, in one write (see
 * `saveClassified`) — nothing for an incognito turn (`remember: false`), which is classified for
 * its intent only. Returns the node's update: the turn's event, the node's own history, and the
 * session's last intent and active entities for follow-ups.
 */
export async function keepClassification(deps: GraphDeps, store: BaseStore, state: MemoryState, classification: Classification): Promise<MemoryUpdate> {
  // Relations feed the entity graph only: the event and the turn's result keep the classification as before.
  const { classified: answered, classifiedBy, classifyPolicy, classifyReason, fallbackReason, errors, usage } = classification;
  const { relations = [], ...classified } = answered;
  const turn = turnOf(state);
  const scope = scopeOfState(state);
  const now = deps.now();
  const remember = state.input?.remember !== false;
  const saved = remember && classified.importance >= deps.limits.importanceThreshold;
  if (remember) {
    await saveClassified(store, scope, {
      event: saved ? eventRecordOf(classified, classifiedBy, turn, scope.sessionId, now) : null,
      facts: factUpdatesOf(deps, classified, turn.text, now),
      source: { messageId: turn.messageId, sessionId: scope.sessionId, now: now.toISOString() },
      retention: deps.limits.retention,
      now,
      ...(classifiedBy === "model" ? { graph: graphOf(classified.entities, relations, turn, scope.sessionId) } : {}),
    });
  }

  const event: TurnEvent = { ...classified, text: turn.text, classifiedBy, classifyPolicy, classifyReason, saved, fallbackReason };
  const answer = withMeta(new AIMessage({ id: `${turn.messageId}#${NODE.classifyEvent}`, content: JSON.stringify(classified) }), {
    parentId: turn.messageId,
    createdAt: now.toISOString(),
  });
  return {
    event,
    errors,
    usage,
    nodeMessages: { [NODE.classifyEvent]: [humanForNode(state), answer] },
    session: {
      lastIntent: classified.intent || state.session.lastIntent,
      activeEntities: classified.entities.length > 0 ? classified.entities : state.session.activeEntities,
    },
  };
}

/** The fact updates a classification of `text` (said at `at`) makes: those the profile keeps, each bounded in time as the text says. */
export function factUpdatesOf(deps: Pick<GraphDeps, "profile">, classified: ClassifiedEvent, text: string, at: Date) {
  return boundedInTime(deps.profile ? deps.profile.fit(classified.attributeUpdates) : classified.attributeUpdates, text, at);
}

/** The turn's message with the model's extraction of its entities and relations (said by the user). */
function graphOf(entities: ClassifiedEvent["entities"], relations: NonNullable<ClassifiedEvent["relations"]>, turn: TurnInfo, sessionId: string) {
  const message = { id: turn.messageId, role: "user" as const, text: turn.text, parentId: null, sessionId, createdAt: turn.startedAt };
  return { message, extraction: extractionOfClassified(entities, relations, USER_NODE) };
}

/** The event record a classified message keeps, keyed by its message (classifying it again overwrites). */
function eventRecordOf(classified: ClassifiedEvent, classifiedBy: TurnEvent["classifiedBy"], turn: TurnInfo, sessionId: string, now: Date): EventRecord {
  const { type, importance, intent, entities, language, payload } = classified;
  return { id: turn.messageId, type, importance, intent, entities, language, payload, text: turn.text, messageId: turn.messageId, sessionId, createdAt: now.toISOString(), classifiedBy };
}
