import { tool, type StructuredToolInterface, type ToolRuntime } from "@langchain/core/tools";
import { z } from "zod";
import { MemoryGraphError } from "../../errors.js";
import { currentFacts, normalizeFactKey, saveFacts } from "../../memory/facts.js";
import { ITEM_KINDS } from "../../memory/item-search.js";
import { userOfContext } from "./agent-context.js";
import type { AgentParts } from "./agent-parts.js";
import type { AgentTurn } from "./agent-turn.js";

/** The memory tools the middleware can give an agent. */
export const MEMORY_TOOLS = ["search_memory", "remember", "forget"] as const;
export type MemoryToolName = (typeof MEMORY_TOOLS)[number];

/** The tools `option` asks for: all of them for `true`, none for `false` or nothing. */
export function memoryToolsOf(parts: AgentParts, option: boolean | readonly MemoryToolName[] | undefined): StructuredToolInterface[] {
  const names = option === true ? MEMORY_TOOLS : option ? option : [];
  for (const name of names) {
    if (!MEMORY_TOOLS.includes(name)) throw new MemoryGraphError("INVALID_INPUT", `tools: unknown memory tool ${String(name)} (one of ${MEMORY_TOOLS.join(", ")})`, { kind: "user", field: "tools" });
  }
  const made: Record<MemoryToolName, () => StructuredToolInterface> = { search_memory: () => searchTool(parts), remember: () => rememberTool(parts), forget: () => forgetTool(parts) };
  return [...new Set(names)].map((name) => made[name]());
}

/*
 * Every tool is scoped by the agent's runtime context (its tenant and user, checked as a turn's
 * are): no argument names a tenant or a user, and one the model adds is dropped with the rest of
 * what the schema does not know.
 */

const time = z.iso.datetime({ offset: true });

function searchTool(parts: AgentParts) {
  const schema = z.object({
    query: z.string().min(1).describe("What to look for, in a few words."),
    kinds: z.array(z.enum(ITEM_KINDS)).min(1).optional().describe("The kinds of memory to search (default: all): message, fact, event, summary."),
    limit: z.number().int().min(1).max(20).optional().describe("Most results (default 8)."),
    sessionId: z.string().optional().describe("Only this conversation."),
    from: time.optional().describe("Only what was said or learned at or after this time (ISO 8601)."),
    to: time.optional().describe("Only what was said or learned at or before this time (ISO 8601)."),
  });
  return tool(
    async (args, runtime: ToolRuntime) => {
      const user = userOfContext(runtime.context);
      const hits = await parts.graph.searchItems({ ...user, ...args, limit: args.limit ?? 8 });
      if (hits.length === 0) return "Nothing in memory matches.";
      return JSON.stringify(hits.map(({ kind, id, sessionId, text, createdAt }) => ({ kind, id, sessionId, text, createdAt })));
    },
    { name: "search_memory", description: "Search what you remember of this user: past messages (ranked as recall ranks them), facts, events and summaries, with filters.", schema },
  );
}

function rememberTool(parts: AgentParts) {
  const schema = z.object({
    key: z.string().min(1).max(200).describe('What the fact is about, e.g. "city", "partner name", "likes.coffee".'),
    value: z.string().min(1).max(2000).describe('The value, e.g. "Lisbon".'),
  });
  return tool(
    async ({ key, value }, runtime: ToolRuntime) => {
      const user = userOfContext(runtime.context);
      const turn = (runtime.state as { _memoryTurn?: AgentTurn | null } | undefined)?._memoryTurn;
      if (!turn || turn.input.remember === false) return "Not remembered: nothing of this conversation is kept.";
      const [update] = parts.deps.profile ? parts.deps.profile.fit([{ key, value }]) : [{ key, value }];
      if (!update) return `Not remembered: ${normalizeFactKey(key)} is not a fact this assistant keeps.`;
      const scope = { ...user, sessionId: turn.scope.sessionId };
      // Learned from this turn's user message, as classification learns a fact: deleting the message deletes it.
      const source = { messageId: turn.user.id, sessionId: scope.sessionId, now: parts.deps.now().toISOString() };
      const written = await parts.locked(scope, () => saveFacts(parts.store, user, [update], source));
      return written.length > 0 ? `Remembered ${normalizeFactKey(update.key)}: ${update.value.trim()}.` : "Already known.";
    },
    { name: "remember", description: "Remember a fact about this user (a key and its value); a new value for a key replaces the old one, which is kept as history.", schema },
  );
}

function forgetTool(parts: AgentParts) {
  const schema = z.object({
    key: z.string().min(1).optional().describe("Forget this fact and every earlier value of it."),
    factId: z.string().min(1).optional().describe("Forget this one version of a fact (an id search_memory returned)."),
  });
  return tool(
    async ({ key, factId }, runtime: ToolRuntime) => {
      const user = userOfContext(runtime.context);
      const id = factId ?? (key === undefined ? undefined : currentFacts(await parts.graph.listFacts(user)).find((fact) => sameKey(fact.key, key))?.id);
      if (id === undefined) return key === undefined && factId === undefined ? "Say which fact to forget: its key or its id." : "No such fact in memory.";
      const deleted = await parts.graph.deleteFact(user, id, { versions: factId === undefined ? "all" : "one" });
      return deleted.facts > 0 ? `Forgotten (${deleted.facts} version${deleted.facts === 1 ? "" : "s"}), and taken out of what was said and learned.` : "No such fact in memory.";
    },
    { name: "forget", description: "Forget a fact about this user, by its key or its id: it is deleted, and its value taken out of every stored message, event and summary.", schema },
  );
}

/** Whether a key the model names is a fact's key as the memory block shows it ("location city" for `location.city`). */
function sameKey(factKey: string, named: string): boolean {
  const loose = (key: string) => normalizeFactKey(key).replace(/\./g, "_");
  return loose(factKey) === loose(named);
}
