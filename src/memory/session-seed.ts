import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { SystemMessage } from "@langchain/core/messages";
import { withMeta } from "../messages/message-meta.js";
import { clip } from "./clip.js";
import { currentFacts, loadFacts } from "./facts.js";
import type { MemoryScope } from "./scope.js";
import { latestSummaries } from "./summaries.js";
import { freshSummaries } from "./summary-staleness.js";

/**
 * What a new window starts from when a session is new or its TTL has passed: the latest
 * summary, the user's attributes and preferences, as one pinned system message. Long-term
 * memory is only read.
 */
export async function seedWindow(store: BaseStore, scope: MemoryScope, now: Date, id: string): Promise<SystemMessage | null> {
  const [summaries, facts] = await Promise.all([latestSummaries(store, scope, 3).then(freshSummaries), loadFacts(store, scope).then((facts) => currentFacts(facts, now))]);
  const preferences = facts.filter((fact) => fact.key.startsWith("preference"));
  const attributes = facts.filter((fact) => !fact.key.startsWith("preference"));
  const parts: string[] = [];
  const latest = summaries[0];
  if (latest) parts.push(`Last time (${latest.createdAt.slice(0, 10)}):\n${clip(latest.text, 600)}`);
  if (attributes.length > 0) parts.push(`About the user:\n${attributes.slice(0, 10).map((f) => `- ${clip(f.text, 160)}`).join("\n")}`);
  if (preferences.length > 0) parts.push(`Preferences:\n${preferences.slice(0, 10).map((f) => `- ${clip(f.text, 160)}`).join("\n")}`);
  if (parts.length === 0) return null;
  const message = new SystemMessage({ id, content: `Carried over from earlier sessions:\n\n${parts.join("\n\n")}` });
  return withMeta(message, { pinned: true, parentId: null, createdAt: now.toISOString() });
}
