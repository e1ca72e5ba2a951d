import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { Runnable } from "@langchain/core/runnables";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import { openAiLoaded, openAiModule } from "./openai-module.js";
import { MemoryGraphError, messageOf } from "../errors.js";
import { log } from "../logger.js";
import { type ClassifiedEvent, type ClassifyContext, EVENT_TYPES, type EventEntity, classifiedEventSchema, modelEventSchema } from "../rules/event-schema.js";
import { classifiedPart } from "../rules/keyword-classifier.js";
import { findOrderIds } from "../rules/text-signals.js";
import { normalizeEventCandidate, parseJsonObject } from "./structured-parse.js";
import type { SummaryMessage, SummaryOptions } from "../rules/rule-summarizer.js";
import { clip } from "../memory/clip.js";

const CLASSIFY_PROMPT = `You classify one user message for a customer-conversation memory system.
Return the classified_event with:
- type: one of ${EVENT_TYPES.join(", ")}.
- importance: 0..1, how much this matters to remember (complaints, money and stated personal facts are high; greetings are low).
- intent: short snake_case, e.g. balance_inquiry, money_transfer, refund_request, greeting.
- entities: people, products, order ids, places, organisations named in the message as "type:value" strings, e.g. "person:Bharat", "place:Pune", "organization:Infosys". If the message uses a pronoun (it, him, usko, เขา ...) and names no one, use the active entities from the context. Entities in the context's "found" are read from the message already: do not repeat them.
- payload: extra details, e.g. {"amount": 500, "currency": "THB"}; add "resolvedFrom": "context" when entities came from the context.
- relations: how the people, places and organisations relate, as "subject|relation|object" strings with a snake_case relation and "I" for the user, e.g. "Priya|sister_of|I", "Priya|lives_in|Pune", "I|works_at|Infosys"; for a pronoun, the person it stands for.
- attributeUpdates: facts the user states about themself as "key:value" strings, keys like phone, email, name, preference.language, preference.
- language: only when the message is not in English, its short tag ("es", "th", "hi" for Hindi also when romanised).
Leave out entities, relations, payload and attributeUpdates when they would be empty, and language for English.`;

const SUMMARY_PROMPT = `Summarize the conversation below as 4 to 6 short bullet points, each starting with "- ".
Stay under 120 tokens in total. Keep numbers, names, decisions and facts the user stated.
Write in the language the conversation uses. Output only the bullet points.`;

const SUMMARY_TEMPERATURE = 0.2;
const TRANSCRIPT_CHARS = 12_000;

type ToolCaller = Runnable<BaseMessage[], AIMessage>;

/**
 * Side calls (classification, summaries) never reach a caller's token stream: LangGraph's
 * "messages" stream mode skips runs with this tag (tracing still sees them).
 */
const SIDE_CALL = { tags: ["langsmith:nostream"] };

const toolCallers = new WeakMap<BaseChatModel, ToolCaller | null>();
const sideCallModels = new WeakMap<BaseChatModel, Runnable<BaseMessage[], AIMessage>>();

/** The model as a side call (not streamed), made once per model. */
function sideCall(model: BaseChatModel): Runnable<BaseMessage[], AIMessage> {
  let runnable = sideCallModels.get(model);
  if (!runnable) {
    runnable = model.withConfig(SIDE_CALL) as Runnable<BaseMessage[], AIMessage>;
    sideCallModels.set(model, runnable);
  }
  return runnable;
}

/**
 * The classification as an OpenAI-format tool, which every tool-calling chat model of LangChain
 * accepts; its JSON schema made on the first model bound to it, not when the service loads (a
 * start without a model, or one whose first turns do not ask it, never converts the zod schema).
 */
let classifiedEventTool: { type: "function"; function: { name: string; description: string; parameters: ReturnType<typeof toJsonSchema> } } | undefined;
const CLASSIFIED_EVENT = "classified_event";
function classificationTool() {
  return (classifiedEventTool ??= {
    type: "function",
    function: { name: CLASSIFIED_EVENT, description: "The classification of the user's message.", parameters: toJsonSchema(modelEventSchema) },
  });
}

/**
 * The model bound to the classification tool, which it must call; made once per model (null: the
 * model binds no tools). Function calling works on every OpenAI-compatible server and, unlike
 * strict JSON schema, accepts the free-form `payload` record. The tool call's arguments are read
 * and checked here (`candidateOf`, then the schema), so no output-parser chain runs around the
 * call (`withStructuredOutput` with its raw answer ran a sequence, a map, an assign with a fallback
 * and their lambdas, each a run of its own: `npm run bench:classify-call` compares the two).
 */
function toolCaller(model: BaseChatModel): ToolCaller | null {
  const known = toolCallers.get(model);
  if (known !== undefined) return known;
  let caller: ToolCaller | null = null;
  try {
    if (typeof model.bindTools === "function") caller = model.bindTools([classificationTool()], { tool_choice: CLASSIFIED_EVENT }).withConfig(SIDE_CALL) as ToolCaller;
  } catch (error) {
    log.debug("tool_calling_unavailable", { error: messageOf(error) });
  }
  toolCallers.set(model, caller);
  return caller;
}

/** What a provider reported a call used, handed to the caller's `onUsage`. */
export type UsageListener = (reply: Pick<AIMessage, "usage_metadata"> | undefined) => void;

function isParseFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if ("status" in error) return false;
  return (
    error instanceof SyntaxError ||
    /OutputParser|ZodError/.test(error.name) ||
    /parse|json|tool call|structured output/i.test(error.message)
  );
}

function badOutput(detail: string, cause?: unknown): MemoryGraphError {
  return new MemoryGraphError("CLASSIFIER_BAD_OUTPUT", `The model's classification did not parse: ${detail}`, {
    kind: "upstream",
    cause,
  });
}

/** The object that should be the event: the tool call's arguments, else a JSON object in the text. */
function candidateOf(reply: AIMessage): unknown {
  return reply.tool_calls?.[0]?.args ?? parseJsonObject(reply.text);
}

/**
 * Classifies `text` with the model's call of the classification tool, in the compact
 * {@link modelEventSchema} (a JSON prompt instead when the model binds no tools), validated with
 * {@link classifiedEventSchema} after light clean-up (upper-cased type, importance clamped to
 * 0..1, "kind:value" strings made objects, missing lists made empty, the language detected
 * locally when the model names none). Order numbers are found in `text` locally, shown to the model as found, and added to
 * the entities it names. Throws
 * MemoryGraphError CLASSIFIER_BAD_OUTPUT (kind "upstream") when the answer does not parse;
 * transport errors (timeouts, 429, 5xx) are rethrown unchanged so callers may retry them.
 */
export async function classifyWithModel(
  model: BaseChatModel,
  text: string,
  context: ClassifyContext = {},
  onUsage?: UsageListener,
): Promise<ClassifiedEvent> {
  // Order numbers are copied, not understood: found here, the model need not spend tokens on them.
  const found = findOrderIds(classifiedPart(text));
  const contextLine = JSON.stringify({
    lastIntent: context.lastIntent ?? null,
    activeEntities: (context.activeEntities ?? []).map(pairText),
    ...(found.length > 0 ? { found: found.map(pairText) } : {}),
  });
  const messages: BaseMessage[] = [
    new SystemMessage(CLASSIFY_PROMPT),
    new HumanMessage(`Context: ${contextLine}${context.profile ? `\n\nattributeUpdates keys: only these, exactly as written (leave out any other fact): ${context.profile}` : ""}\n\nMessage: ${text}`),
  ];
  let candidate: unknown;
  try {
    const caller = toolCaller(model);
    if (caller) {
      const reply = await caller.invoke(messages);
      onUsage?.(reply);
      candidate = candidateOf(reply);
    } else {
      const json = "Answer with one JSON object only, with those fields.";
      const reply = await sideCall(model).invoke([new SystemMessage(`${CLASSIFY_PROMPT}\n${json}`), messages[1] as BaseMessage]);
      onUsage?.(reply);
      candidate = parseJsonObject(reply.text);
    }
  } catch (error) {
    if (isParseFailure(error)) throw badOutput(messageOf(error), error);
    throw error;
  }
  if (candidate === undefined) throw badOutput("no JSON object or tool call in the answer");
  const parsed = classifiedEventSchema.safeParse(normalizeEventCandidate(candidate, text));
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`);
    throw badOutput(issues.slice(0, 3).join("; "), parsed.error);
  }
  const { entities } = parsed.data;
  const known = new Set(entities.map((entity) => pairText(entity).toLowerCase()));
  return { ...parsed.data, entities: [...entities, ...found.filter((entity) => !known.has(pairText(entity).toLowerCase()))] };
}

/** An entity as the compact "type:value" the classifier's model reads and writes. */
const pairText = (entity: EventEntity) => `${entity.type}:${entity.value}`;

const lowTemperatureClones = new WeakMap<BaseChatModel, BaseChatModel>();

/** A ChatOpenAI copy at temperature 0.2; other models (and reasoning models, which refuse it) as they are. */
function forSummaries(model: BaseChatModel): BaseChatModel {
  // A ChatOpenAI exists only once @langchain/openai is loaded: the check loads nothing otherwise.
  if (!isChatOpenAi(model)) return model;
  if (model.temperature === SUMMARY_TEMPERATURE || /^(o\d|gpt-5)/.test(model.model)) return model;
  let clone = lowTemperatureClones.get(model);
  if (!clone) {
    clone = new (openAiModule().ChatOpenAI)({ ...model.lc_kwargs, temperature: SUMMARY_TEMPERATURE });
    lowTemperatureClones.set(model, clone);
  }
  return clone;
}

/** Whether `model` is a `ChatOpenAI` (the one this process loaded, whoever built the model). */
function isChatOpenAi(model: BaseChatModel): model is InstanceType<ReturnType<typeof openAiModule>["ChatOpenAI"]> {
  if (!model.lc_namespace.includes("openai") && !openAiLoaded()) return false;
  return model instanceof openAiModule().ChatOpenAI;
}

function transcriptOf(messages: readonly SummaryMessage[]): string {
  const lines = messages.map((m) => `${m.role === "user" ? "User" : "Assistant"}: ${clip(m.text, 800)}`);
  const kept: string[] = [];
  let size = 0;
  // Keep the newest lines when the transcript is long.
  for (let i = lines.length - 1; i >= 0 && size < TRANSCRIPT_CHARS; i -= 1) {
    const line = lines[i] ?? "";
    kept.unshift(line);
    size += line.length + 1;
  }
  return kept.join("\n");
}

/**
 * Asks the model for a 4–6 bullet summary (under ~120 tokens) of `messages`, at temperature
 * 0.2 where the model takes one. Returns the trimmed text; throws MemoryGraphError
 * SUMMARIZER_EMPTY_OUTPUT (kind "upstream") when the answer is empty. `options.maxChars` is
 * not enforced here: callers clip if they must.
 */
export async function summarizeWithModel(
  model: BaseChatModel,
  messages: readonly SummaryMessage[],
  options: SummaryOptions = {},
  onUsage?: UsageListener,
): Promise<string> {
  const bullets = options.maxBullets === undefined ? "" : `\nUse at most ${options.maxBullets} bullet points.`;
  const reply = await sideCall(forSummaries(model)).invoke([
    new SystemMessage(`${SUMMARY_PROMPT}${bullets}`),
    new HumanMessage(`Conversation:\n${transcriptOf(messages)}`),
  ]);
  onUsage?.(reply);
  const text = reply.text.trim();
  if (!text) {
    throw new MemoryGraphError("SUMMARIZER_EMPTY_OUTPUT", "The model returned an empty summary", { kind: "upstream" });
  }
  return text;
}

/**
 * Asks the model for a short title (at most 6 words) of a conversation that begins with
 * `messages`. Returns it without quotes or a final full stop; SUMMARIZER_EMPTY_OUTPUT when empty.
 */
export async function titleWithModel(model: BaseChatModel, messages: readonly SummaryMessage[], onUsage?: UsageListener): Promise<string> {
  const reply = await sideCall(forSummaries(model)).invoke([
    new SystemMessage("Give this conversation a title of at most 6 words, in the user's language. Answer with the title only."),
    new HumanMessage(`Conversation:\n${transcriptOf(messages)}`),
  ]);
  onUsage?.(reply);
  const title = reply.text.trim().replace(/^["'“”]+|["'“”.]+$/g, "").trim();
  if (!title) throw new MemoryGraphError("SUMMARIZER_EMPTY_OUTPUT", "The model returned an empty title", { kind: "upstream" });
  return title;
}
