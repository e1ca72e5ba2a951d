import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { SystemMessage, type BaseMessage } from "@langchain/core/messages";
import { metaOf, textOf, withMeta, type CarriedRefs } from "../messages/message-meta.js";
import { clip } from "./clip.js";
import { currentFacts, loadFacts } from "./facts.js";
import { namespaces } from "./namespaces.js";
import type { FactRecord, SummaryRecord } from "./records.js";
import type { MemoryScope } from "./scope.js";
import { latestSummaries } from "./summaries.js";
import { freshSummaries } from "./summary-staleness.js";

/**
 * The message a new window starts from (a new session, or one past its TTL): what it carries over
 * from earlier sessions — the latest summary, the user's attributes and preferences — held as
 * references (the summary's id, the facts' keys), never as values. Its text is rendered from
 * current memory each turn (`carriedOverFor`), so an edited, deleted or expired fact, or an edited
 * or deleted summary, never reaches a prompt in its old form, and no checkpoint keeps a copy of it.
 */

/** The text the seed holds in the window; what it carries is rendered at prompt time. */
export const SEED_TEXT = "Carried over from earlier sessions (read from current memory at each turn).";
/** The opening of a seed written before seeds held references: its values are frozen, so it is never shown. */
const FROZEN_SEED_OPENING = "Carried over from earlier sessions:\n";
const MAX_FACTS_PER_PART = 10;

/**
 * The seed of a new window: a pinned system message whose meta holds what it carries over (the
 * latest fresh summary, up to ten attribute and ten preference keys current at `now`). Null when
 * there is nothing to carry. Long-term memory is only read.
 */
export async function seedWindow(store: BaseStore, scope: MemoryScope, now: Date, id: string): Promise<SystemMessage | null> {
  const [summaries, facts] = await Promise.all([latestSummaries(store, scope, 3).then(freshSummaries), loadFacts(store, scope).then((facts) => currentFacts(facts, now))]);
  const { attributes, preferences } = partsOf(facts);
  const carried: CarriedRefs = { summaryId: summaries[0]?.id ?? null, factKeys: [...attributes, ...preferences].map((fact) => fact.key) };
  if (carried.summaryId === null && carried.factKeys.length === 0) return null;
  return withMeta(new SystemMessage({ id, content: SEED_TEXT }), { pinned: true, parentId: null, createdAt: now.toISOString(), carried });
}

/** True for a window's seed: one that holds references, or one written before (frozen values, never shown). */
export function isSeed(message: BaseMessage): boolean {
  return metaOf(message).carried !== undefined || (message.getType() === "system" && textOf(message).startsWith(FROZEN_SEED_OPENING));
}

/** What a seed shows one turn: its text, and the ids of the facts and summary it showed. */
export interface CarriedOver {
  text: string;
  shown: { facts: string[]; summaries: string[] };
}

/** What a turn may show, and what its recall already read (the user's current facts, fresh summaries). */
export interface CarriedSources {
  /** The memory sections the turn asked for: a seed shows its summary only with "summaries", its facts only with "facts". */
  summaries: boolean;
  facts: boolean;
  recalledSummaries: readonly SummaryRecord[];
  recalledFacts: readonly FactRecord[];
}

/**
 * The seed of `window` rendered from current memory: its summary as it now reads (none once it
 * is deleted or stale), the current value of each fact key it carried (none once deleted or
 * expired). Reads the store only for a summary that recall did not read. Null without a seed
 * holding references, or with nothing left to show.
 */
export async function carriedOverFor(store: BaseStore, scope: Pick<MemoryScope, "tenantId" | "userId">, window: readonly BaseMessage[], sources: CarriedSources): Promise<CarriedOver | null> {
  const refs = window.map((message) => metaOf(message).carried).find((carried) => carried !== undefined);
  if (!refs) return null;
  const summary = sources.summaries && refs.summaryId !== null ? await summaryNow(store, scope, refs.summaryId, sources.recalledSummaries) : null;
  const keys = new Set(sources.facts ? refs.factKeys : []);
  return renderCarriedOver(summary, sources.recalledFacts.filter((fact) => keys.has(fact.key)));
}

/** The seed's text from its summary and facts (current ones, pinned first). Null when both are empty. Pure. */
export function renderCarriedOver(summary: SummaryRecord | null, facts: readonly FactRecord[]): CarriedOver | null {
  const { attributes, preferences } = partsOf(facts);
  const parts: string[] = [];
  if (summary) parts.push(`Last time (${summary.createdAt.slice(0, 10)}):\n${clip(summary.text, 600)}`);
  if (attributes.length > 0) parts.push(`About the user:\n${attributes.map((f) => `- ${clip(f.text, 160)}`).join("\n")}`);
  if (preferences.length > 0) parts.push(`Preferences:\n${preferences.map((f) => `- ${clip(f.text, 160)}`).join("\n")}`);
  if (parts.length === 0) return null;
  return {
    text: `Carried over from earlier sessions:\n\n${parts.join("\n\n")}`,
    shown: { facts: [...attributes, ...preferences].map((fact) => fact.id), summaries: summary ? [summary.id] : [] },
  };
}

function partsOf(facts: readonly FactRecord[]): { attributes: FactRecord[]; preferences: FactRecord[] } {
  return {
    attributes: facts.filter((fact) => !fact.key.startsWith("preference")).slice(0, MAX_FACTS_PER_PART),
    preferences: facts.filter((fact) => fact.key.startsWith("preference")).slice(0, MAX_FACTS_PER_PART),
  };
}

async function summaryNow(store: BaseStore, scope: Pick<MemoryScope, "tenantId" | "userId">, id: string, recalled: readonly SummaryRecord[]): Promise<SummaryRecord | null> {
  const known = recalled.find((summary) => summary.id === id);
  if (known) return known;
  const item = await store.get(namespaces.summaries(scope), id);
  const summary = item ? (item.value as unknown as SummaryRecord) : null;
  return summary && !summary.stale ? summary : null;
}
