import { readFileSync } from "node:fs";
import type { ImportSession } from "../../src/index.js";

/**
 * Reads a LoCoMo file (format: ../shared/bench/locomo/README.md) into plain turns and questions.
 * This is the benchmark's adapter from the dataset's shape to messages; nothing here reaches the
 * ranking code.
 */

export interface LocomoTurn {
  /** The dataset's dia_id, normalised ("D3:7"). */
  id: string;
  session: number;
  speaker: string;
  /** The turn's words, with a shared image's caption appended as "[shared an image: …]". */
  text: string;
  /** ISO time: the session's date and time, plus one second per turn so turns stay ordered. */
  createdAt: string;
}

export interface LocomoQuestion {
  question: string;
  category: number;
  /** Normalised evidence ids that exist in the conversation. */
  evidence: string[];
}

export interface LocomoConversation {
  sampleId: string;
  speakers: [string, string];
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/** "1:56 pm on 8 May, 2023" → a Date (UTC); undefined when the text does not parse. */
export function parseSessionTime(text: string): Date | undefined {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text);
  if (!m) return undefined;
  const month = MONTHS.indexOf((m[5] ?? "").toLowerCase());
  if (month < 0) return undefined;
  let hour = Number(m[1]) % 12;
  if ((m[3] ?? "").toLowerCase() === "pm") hour += 12;
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2])));
}

/** "D8:6; D9:17" → ["D8:6", "D9:17"]; "D:11:26" → "D11:26"; "D30:05" → "D30:5". */
export function normalizeEvidence(raw: readonly unknown[]): string[] {
  const out: string[] = [];
  for (const entry of raw) {
    for (const part of String(entry).split(/[;,\s]+/)) {
      const m = /^D:?(\d+):(\d+)$/i.exec(part.trim());
      if (m) out.push(`D${Number(m[1])}:${Number(m[2])}`);
    }
  }
  return [...new Set(out)];
}

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

interface RawSample {
  sample_id: string;
  conversation: Record<string, unknown> & { speaker_a: string; speaker_b: string };
  qa: { question: string; category: number; evidence?: unknown[] }[];
}

export function loadLocomo(path: string): LocomoConversation[] {
  const raw = JSON.parse(readFileSync(path, "utf8")) as RawSample[];
  return raw.map((sample) => {
    const conv = sample.conversation;
    const sessions = Object.keys(conv)
      .map((key) => /^session_(\d+)$/.exec(key))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    const turns: LocomoTurn[] = [];
    for (const n of sessions) {
      const when = conv[`session_${n}_date_time`];
      const start = (typeof when === "string" ? parseSessionTime(when) : undefined) ?? new Date(Date.UTC(2000, 0, n));
      const list = (conv[`session_${n}`] ?? []) as RawTurn[];
      list.forEach((turn, i) => {
        const [id] = normalizeEvidence([turn.dia_id]);
        if (!id) return;
        const caption = turn.blip_caption ? ` [shared an image: ${turn.blip_caption}]` : "";
        turns.push({
          id,
          session: n,
          speaker: turn.speaker,
          text: `${turn.text}${caption}`,
          createdAt: new Date(start.getTime() + i * 1000).toISOString(),
        });
      });
    }
    const known = new Set(turns.map((t) => t.id));
    const questions = sample.qa.map((qa) => ({
      question: qa.question,
      category: qa.category,
      evidence: normalizeEvidence(qa.evidence ?? []).filter((id) => known.has(id)),
    }));
    return { sampleId: sample.sample_id, speakers: [conv.speaker_a, conv.speaker_b], turns, questions };
  });
}

/** The conversation's turns as sessions to import (`importSessions`), in order: the first speaker is the user. */
export function locomoSessions(conv: LocomoConversation): ImportSession[] {
  const sessions = new Map<number, ImportSession>();
  for (const turn of conv.turns) {
    const session = sessions.get(turn.session) ?? { sessionId: `session-${turn.session}`, startedAt: turn.createdAt, messages: [] };
    const role = turn.speaker === conv.speakers[0] ? "user" : "assistant";
    session.messages.push({ id: turn.id, role, text: turn.text, speaker: turn.speaker, createdAt: turn.createdAt });
    sessions.set(turn.session, session);
  }
  return [...sessions.values()];
}
