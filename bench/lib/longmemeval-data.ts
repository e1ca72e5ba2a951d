import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import type { ImportSession } from "../../src/index.js";

/**
 * Reads a LongMemEval file (format: ../shared/bench/longmemeval/README.md), gzipped or not, into
 * plain turns and questions. Turns are keyed by position ("s<session>:t<turn>"), as a haystack may
 * hold the same session twice. Abstention questions (ids ending "_abs") are left out.
 */

export interface LmeTurn {
  /** "s<session index>:t<turn index>". */
  id: string;
  session: number;
  role: "user" | "assistant";
  text: string;
  /** ISO time: the session's date plus one second per turn, so turns stay ordered. */
  createdAt: string;
  evidence: boolean;
}

export interface LmeQuestion {
  id: string;
  type: string;
  question: string;
  /** ISO time the question is asked. */
  askedAt: string;
  turns: LmeTurn[];
  /** Indexes of the sessions named in `answer_session_ids`. */
  answerSessions: Set<number>;
}

interface RawQuestion {
  question_id: string;
  question_type: string;
  question: string;
  question_date: string;
  answer_session_ids: string[];
  haystack_session_ids: string[];
  haystack_dates: string[];
  haystack_sessions: { role: string; content: string; has_answer?: boolean }[][];
}

/** "2023/05/20 (Sat) 07:47" → a Date (UTC); undefined when the text does not parse. */
export function parseLmeDate(text: string): Date | undefined {
  const m = /(\d{4})\/(\d{2})\/(\d{2})\s*(?:\([A-Za-z]+\))?\s*(\d{2}):(\d{2})/.exec(text);
  if (!m) return undefined;
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5])));
}

export function loadLongMemEval(path: string): LmeQuestion[] {
  const bytes = readFileSync(path);
  const json = bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes).toString("utf8") : bytes.toString("utf8");
  const raw = JSON.parse(json) as RawQuestion[];
  return raw
    .filter((q) => !q.question_id.endsWith("_abs"))
    .map((q) => {
      const answerIds = new Set(q.answer_session_ids);
      const answerSessions = new Set<number>();
      const turns: LmeTurn[] = [];
      q.haystack_sessions.forEach((session, s) => {
        if (answerIds.has(q.haystack_session_ids[s] ?? "")) answerSessions.add(s);
        const start = parseLmeDate(q.haystack_dates[s] ?? "") ?? new Date(Date.UTC(2000, 0, 1 + s));
        session.forEach((turn, t) => {
          turns.push({
            id: `s${s}:t${t}`,
            session: s,
            role: turn.role === "user" ? "user" : "assistant",
            text: turn.content,
            createdAt: new Date(start.getTime() + t * 1000).toISOString(),
            evidence: turn.has_answer === true,
          });
        });
      });
      const asked = parseLmeDate(q.question_date) ?? new Date(Date.UTC(2030, 0, 1));
      return { id: q.question_id, type: q.question_type, question: q.question, askedAt: asked.toISOString(), turns, answerSessions };
    })
    .filter((q) => q.turns.some((t) => t.evidence));
}

/** The haystack's turns as sessions to import, in order. */
export function sessionsOf(q: LmeQuestion): ImportSession[] {
  const sessions = new Map<number, ImportSession>();
  for (const turn of q.turns) {
    const session = sessions.get(turn.session) ?? { sessionId: `session-${turn.session}`, startedAt: turn.createdAt, messages: [] };
    session.messages.push({ id: turn.id, role: turn.role, text: turn.text, createdAt: turn.createdAt });
    sessions.set(turn.session, session);
  }
  return [...sessions.values()];
}
