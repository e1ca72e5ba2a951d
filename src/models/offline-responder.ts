import { clip } from "../memory/clip.js";

/** What memory recalled for this turn, as plain strings. */
export interface RecalledForReply {
  summaries: string[];
  facts: string[];
  similar: string[];
  events: string[];
}

const PER_SECTION = 3;
const ITEM_CHARS = 160;

function section(title: string, items: readonly string[]): string[] {
  const shown = items.map((item) => item.trim()).filter(Boolean);
  if (shown.length === 0) return [];
  const lines = shown.slice(0, PER_SECTION).map((item) => `  - ${clip(item, ITEM_CHARS)}`);
  if (shown.length > PER_SECTION) lines.push(`  - …and ${shown.length - PER_SECTION} more`);
  return [`${title}:`, ...lines];
}

/**
 * The reply when no language model is configured: says so plainly (and how to configure
 * one), then lists briefly what memory recalled for the message, or that nothing was.
 */
export function offlineReply(input: { message: string; recalled: RecalledForReply }): string {
  const { recalled } = input;
  const head =
    "No language model is configured, so this reply comes from the offline responder. " +
    "Set OPENAI_API_KEY (or OPENAI_BASE_URL for an OpenAI-compatible server) to get real answers.";
  const asked = input.message.trim() ? `You said: "${clip(input.message, 120)}"` : "";
  const body = [
    ...section("Facts I remember about you", recalled.facts),
    ...section("Earlier conversation summaries", recalled.summaries),
    ...section("Important events", recalled.events),
    ...section("Similar past messages", recalled.similar),
  ];
  const memory = body.length > 0 ? ["Here is what memory recalled:", ...body] : ["Memory recalled nothing for this message yet."];
  return [head, asked, ...memory].filter(Boolean).join("\n");
}
