import { AIMessage, HumanMessage, SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { isPinned, textOf } from "../messages/message-meta.js";
import { estimateTokens } from "../messages/tokens.js";
import { clip } from "./clip.js";
import { correctionMarker, type Correction } from "./corrections.js";
import type { ContextLimits, SectionLimit } from "./limits.js";
import type { Profile } from "./profile.js";
import type { MemoryContext } from "./recall.js";
import { annotateRelativeDates } from "./relative-dates.js";
import { isSeed } from "./session-seed.js";

/**
 * Context assembly: the prompt in a fixed order — system prompt, recent history, summaries, user
 * facts, important events, similar past messages, recent turns, the new message — each section
 * bounded by its own item and character limits, the memory sections together by a token budget.
 * With a deployment's profile, the facts are its keys in its order, as one "User profile" block.
 */

export interface RenderedContext {
  /** The memory block as the model sees it ("" when memory holds nothing relevant). */
  text: string;
  tokens: number;
  /** The lines of each section that fit, by section name. */
  sections: Record<string, string[]>;
  /** Lines left out because the token budget was reached. */
  droppedForBudget: number;
  /** Ids of the stored messages the context shows (similar messages and recent turns that fit). */
  shownIds?: string[];
  /** Ids of every item the context shows, by layer: stored messages, facts, events, summaries. */
  shown?: ShownItems;
  /** The window's seed as rendered from current memory this turn (absent: the seed shows nothing). */
  carried?: string;
}

/** The ids of what a memory context shows, by layer. */
export interface ShownItems {
  messages: string[];
  facts: string[];
  events: string[];
  summaries: string[];
}

function lines(items: readonly string[], limit: SectionLimit): string[] {
  return items.slice(0, limit.items).map((item) => clip(item, limit.chars));
}

const day = (iso: string): string => iso.slice(0, 10);

/**
 * Renders the memory sections within their limits and the token budget; a similar message's
 * relative dates ("yesterday") carry the date they meant when said. Pure.
 */
export function renderMemoryContext(context: MemoryContext, limits: ContextLimits, options: { profile?: Pick<Profile, "order"> } = {}): RenderedContext {
  const recentIds = new Set(context.recentTurns.map((turn) => turn.id));
  const similar = context.similar.filter((m) => !recentIds.has(m.id));
  const idsOf: Record<string, readonly string[]> = {
    summaries: context.summaries.map((s) => s.id),
    facts: context.facts.map((f) => f.id),
    events: context.events.map((e) => e.id),
    similar: similar.slice(0, limits.similar.items).map((m) => m.id),
    recentTurns: context.recentTurns.slice(0, limits.recentTurns.items).map((t) => t.id),
  };
  const layerOf: Record<string, keyof ShownItems> = { summaries: "summaries", facts: "facts", events: "events", similar: "messages", recentTurns: "messages" };
  const shown: ShownItems = { messages: [], facts: [], events: [], summaries: [] };
  const candidates: [name: string, title: string, lines: string[]][] = [
    ["summaries", "Summaries of earlier conversations", lines(context.summaries.map((s) => s.text), limits.summaries)],
    options.profile
      ? ["facts", "User profile", lines(options.profile.order(context.facts).map((f) => f.text), limits.facts)]
      : ["facts", "What we know about the user", lines(context.facts.map((f) => f.text), limits.facts)],
    ["events", "Important recent events", lines(context.events.map((e) => `${day(e.createdAt)} ${e.type}: ${e.text}`), limits.events)],
    [
      "similar",
      "Related things said before",
      lines(similar.map((m) => `(${day(m.createdAt)}) ${m.speaker ?? m.role}: ${annotateRelativeDates(m.text, m.createdAt)}`), limits.similar),
    ],
    ["recentTurns", "Most recent earlier turns", lines(context.recentTurns.map((t) => `(${day(t.createdAt)}) ${t.speaker ?? t.role}: ${t.text}`), limits.recentTurns)],
  ];
  const sections: Record<string, string[]> = {};
  const blocks: string[] = [];
  let tokens = 0;
  let droppedForBudget = 0;
  for (const [name, title, sectionLines] of candidates) {
    const kept: string[] = [];
    for (const [i, line] of sectionLines.entries()) {
      const cost = estimateTokens(line) + 1 + (kept.length === 0 ? estimateTokens(title) + 2 : 0);
      if (tokens + cost > limits.tokenBudget) {
        droppedForBudget += 1;
        continue;
      }
      tokens += cost;
      kept.push(line);
      const id = idsOf[name]?.[i];
      const layer = layerOf[name];
      if (id !== undefined && layer !== undefined) shown[layer].push(id);
    }
    sections[name] = kept;
    if (kept.length > 0) blocks.push(`## ${title}\n${kept.map((line) => `- ${line}`).join("\n")}`);
  }
  return { text: blocks.join("\n\n"), tokens, sections, droppedForBudget, shownIds: shown.messages, shown };
}

export interface PromptParts {
  systemPrompt: string;
  /** The window before the new message (pinned system messages included). */
  history: readonly BaseMessage[];
  memory: RenderedContext;
  newMessage: BaseMessage;
  limits: ContextLimits;
  /** Changed fact values (recall's): a history message stating an old value carries the change in front of it. */
  corrections?: readonly Correction[];
}

/**
 * The messages sent to the chat model, in the fixed order. A seed of the window (see `isSeed`)
 * stands for what `memory.carried` says this turn, never for its own text; a history message that
 * states a fact's earlier value carries the change in front of it (`corrections`). Pure.
 */
export function assemblePrompt(parts: PromptParts): BaseMessage[] {
  const pinned = parts.history.filter(isPinned).flatMap((message) => (!isSeed(message) ? [textOf(message)] : parts.memory.carried ? [parts.memory.carried] : []));
  const system = [parts.systemPrompt, ...pinned].join("\n\n");
  const correct = correctionMarker(parts.corrections ?? []);
  const recent = parts.history
    .filter((message) => !isPinned(message) && ["human", "ai"].includes(message.getType()))
    .slice(-parts.limits.history.items)
    .map((message) => {
      const content = clip(correct(textOf(message)), parts.limits.history.chars);
      return message.getType() === "human" ? new HumanMessage(content) : new AIMessage(content);
    });
  const prompt: BaseMessage[] = [new SystemMessage(system), ...recent];
  const memory = memoryBlock(parts.memory);
  if (memory) prompt.push(new SystemMessage(memory));
  prompt.push(new HumanMessage(textOf(parts.newMessage)));
  return prompt;
}

/**
 * The memory block as the model reads it — the rendered sections under one line that says what
 * they are — or "" when memory holds nothing relevant. The graph's prompt gives it as a system
 * message after the history; the agent middleware adds it to the agent's system message. Pure.
 */
export function memoryBlock(memory: Pick<RenderedContext, "text">): string {
  return memory.text ? `Memory of this user (use it when it helps; it may be out of date):\n\n${memory.text}` : "";
}
