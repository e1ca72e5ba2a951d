import { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import { messagesStateReducer, type Messages } from "@langchain/langgraph";
import { MemoryGraphError } from "../errors.js";
import { copyMessage, isPinned, textOf } from "../messages/message-meta.js";
import { estimateTokens } from "../messages/tokens.js";
import type { WindowLimits } from "../messages/window-limits.js";
import type { ModelUsage } from "../models/usage.js";

export { estimateTokens } from "../messages/tokens.js";
export { DEFAULT_WINDOW_LIMITS, type WindowLimits } from "../messages/window-limits.js";

/**
 * What a trim did. `beforeCount - afterCount === trimmedByCount + trimmedByChars +
 * trimmedByTokens`: every dropped message is charged to exactly one limit.
 */
export interface TrimReport {
  beforeCount: number;
  afterCount: number;
  trimmedByChars: number;
  trimmedByCount: number;
  trimmedByTokens: number;
}


/** The right-hand side of a messages update: what LangGraph's `messagesStateReducer` accepts. */
export type MessageUpdate = Messages;

type Reason = "trimmedByCount" | "trimmedByChars" | "trimmedByTokens";

function checkLimits(limits: WindowLimits): void {
  const entries: [string, number | undefined][] = [
    ["maxMessages", limits.maxMessages],
    ["maxChars", limits.maxChars],
    ["maxTokens", limits.maxTokens],
  ];
  for (const [field, value] of entries) {
    if (field === "maxTokens" && value === undefined) continue;
    if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
      throw new MemoryGraphError("INVALID_WINDOW_LIMITS", `${field} must be a number ≥ 0, got ${String(value)}`, {
        kind: "system",
        field,
      });
    }
  }
}

/**
 * Keeps the newest messages of `messages` within `limits` and reports why each dropped message
 * went. Oldest non-pinned messages are dropped first: until the count fits `maxMessages`
 * (charged to `trimmedByCount`), then until the text fits `maxChars` (`trimmedByChars`), then,
 * when `maxTokens` is set, until the estimate fits it (`trimmedByTokens`).
 *
 * Invariants:
 * - Kept messages are a subsequence of `messages`, in their original order.
 * - Pinned system messages (`isPinned`) are never dropped and count toward every limit. When
 *   they alone exceed a limit, all of them are kept plus the newest non-pinned message.
 * - The newest non-pinned message is always kept, even if it alone exceeds `maxChars` or
 *   `maxTokens`; so `afterCount ≤ max(maxMessages, pinned + 1)` and the newest message of
 *   `messages` is always kept.
 * - When anything was trimmed, the first kept non-pinned message is not a ToolMessage: leading
 *   ToolMessages whose calling AIMessage was dropped are dropped too, charged to the limit
 *   that dropped that AIMessage. The one exception is a window whose only non-pinned message
 *   is the newest one (the newest is never dropped).
 * - Nothing is trimmed from a window that already fits, so trimming is idempotent.
 * - Pure: `messages` and its elements are not mutated.
 */
export function trimWindowWithReport(
  messages: readonly BaseMessage[],
  limits: WindowLimits,
): { messages: BaseMessage[]; report: TrimReport } {
  checkLimits(limits);
  const pinned = messages.filter((message) => isPinned(message));
  const free = messages.filter((message) => !isPinned(message));
  const chars = free.map((message) => textOf(message).length);
  const tokens = limits.maxTokens === undefined ? [] : free.map((message) => estimateTokens(textOf(message)));
  const reasons: Reason[] = [];

  let start = 0;
  let totalChars = pinned.reduce((sum, message) => sum + textOf(message).length, 0) + sum(chars);
  let totalTokens = pinned.reduce((sum, message) => sum + estimateTokens(textOf(message)), 0) + sum(tokens);
  const last = free.length - 1;
  const drop = (reason: Reason): void => {
    totalChars -= chars[start] ?? 0;
    totalTokens -= tokens[start] ?? 0;
    reasons.push(reason);
    start += 1;
  };

  while (start < last && pinned.length + free.length - start > limits.maxMessages) drop("trimmedByCount");
  while (start < last && totalChars > limits.maxChars) drop("trimmedByChars");
  if (limits.maxTokens !== undefined) {
    while (start < last && totalTokens > limits.maxTokens) drop("trimmedByTokens");
  }
  while (start > 0 && start < last && ToolMessage.isInstance(free[start])) {
    drop(reasonForOrphan(free, start, reasons));
  }

  let freeIndex = 0;
  const kept = messages.filter((message) => isPinned(message) || freeIndex++ >= start);
  const report: TrimReport = {
    beforeCount: messages.length,
    afterCount: kept.length,
    trimmedByCount: reasons.filter((reason) => reason === "trimmedByCount").length,
    trimmedByChars: reasons.filter((reason) => reason === "trimmedByChars").length,
    trimmedByTokens: reasons.filter((reason) => reason === "trimmedByTokens").length,
  };
  return { messages: kept, report };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

/** The reason that dropped the AIMessage calling `free[index]`, else the latest reason. */
function reasonForOrphan(free: readonly BaseMessage[], index: number, reasons: readonly Reason[]): Reason {
  const tool = free[index];
  const callId = ToolMessage.isInstance(tool) ? tool.tool_call_id : undefined;
  for (let i = index - 1; i >= 0; i -= 1) {
    const candidate = free[i];
    if (AIMessage.isInstance(candidate) && candidate.tool_calls?.some((call) => call.id === callId)) {
      return reasons[i] ?? "trimmedByCount";
    }
  }
  return reasons[index - 1] ?? "trimmedByCount";
}

/** {@link trimWindowWithReport} without the report. Same invariants. */
export function trimWindow(messages: readonly BaseMessage[], limits: WindowLimits): BaseMessage[] {
  return trimWindowWithReport(messages, limits).messages;
}

/** A copy of each message that lacks an id, since `messagesStateReducer` writes ids in place. */
function withoutIdlessOriginals(update: MessageUpdate): MessageUpdate {
  const copyIfIdless = <T>(item: T): T =>
    BaseMessage.isInstance(item) && (item.id === undefined || item.id === null) ? (copyMessage(item)) : item;
  return Array.isArray(update) ? (update.map(copyIfIdless) as MessageUpdate) : copyIfIdless(update);
}

/**
 * `update` applied to `current` as a messages channel applies it, with LangGraph's
 * `messagesStateReducer`: upsert by id, `RemoveMessage` and `REMOVE_ALL_MESSAGES` honoured, ids
 * assigned to messages lacking one. Pure: neither argument nor their messages are mutated
 * (messages lacking an id are copied before they get one).
 */
export function applyMessages(current: readonly BaseMessage[], update: MessageUpdate): BaseMessage[] {
  return messagesStateReducer(withoutIdlessOriginals([...current]), withoutIdlessOriginals(update));
}

/**
 * A messages reducer: appends `update` to `current` (see {@link applyMessages}), then keeps the
 * newest messages within `limits` (see {@link trimWindowWithReport}). An empty update leaves a
 * window that fits unchanged in content. Pure. Throws `INVALID_WINDOW_LIMITS` at once on bad limits.
 */
export function appendAndTrim(limits: WindowLimits): (current: BaseMessage[], update: MessageUpdate) => BaseMessage[] {
  checkLimits(limits);
  return (current, update) => trimWindow(applyMessages(current, update), limits);
}

/** Node-scoped memory: each LLM node's id mapped to that node's own messages. */
export type NodeMemory = Record<string, BaseMessage[]>;

/** An update to {@link NodeMemory}: for each node id named, the messages to merge in. */
export type NodeMemoryUpdate = Record<string, MessageUpdate>;

/**
 * A reducer for {@link NodeMemory}. Each node named in the update gets `appendAndTrim(limits)`
 * applied to its own messages (a node not seen before starts empty); nodes not named keep the
 * very same array. Returns a new object; neither argument is mutated. Node ids are stored as
 * own properties, so an id such as "__proto__" cannot reach the prototype.
 */
export function mergeNodeMemory(limits: WindowLimits): (current: NodeMemory, update: NodeMemoryUpdate) => NodeMemory {
  const reduce = appendAndTrim(limits);
  return (current, update) => {
    const merged = new Map<string, BaseMessage[]>(Object.entries(current ?? {}));
    for (const [node, messages] of Object.entries(update ?? {})) {
      merged.set(node, reduce(merged.get(node) ?? [], messages));
    }
    return Object.fromEntries(merged);
  };
}

/** An error a node recorded in state instead of failing the turn. `code` is UPPER_SNAKE. */
export interface NodeError {
  node: string;
  code: string;
  message: string;
  /** The turn that recorded it, so a caller can be given the errors of its own turn. */
  turnId?: string;
}

/** How many recorded errors a session keeps; older ones fall off so the state stays bounded. */
export const MAX_KEPT_ERRORS = 100;

/**
 * Append-only reducer for recorded node errors: `current` followed by `update` (one error or
 * several), in order — entries are never changed or reordered; past `MAX_KEPT_ERRORS` only the
 * oldest fall off. Returns a new array; neither argument is mutated.
 */
export function appendErrors(current: NodeError[], update: NodeError | NodeError[]): NodeError[] {
  const added = Array.isArray(update) ? update : [update];
  const all = [...(current ?? []), ...added];
  return all.length > MAX_KEPT_ERRORS ? all.slice(all.length - MAX_KEPT_ERRORS) : all;
}

/** A channel that holds its last value: an update replaces what was there. */
export function lastValueReducer<T>(_current: T, update: T): T {
  return update;
}

/** A record channel updated field by field: an update overwrites the fields it names. */
export function mergeFields<T extends object>(current: T, update: Partial<T>): T {
  return { ...current, ...update };
}

/** This turn's model calls: `null` (ingest_prompt) starts a new turn's list, a list appends. */
export function addUsage(current: ModelUsage[], update: ModelUsage[] | null): ModelUsage[] {
  return update === null ? [] : [...current, ...update];
}
