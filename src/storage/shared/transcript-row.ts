import type { StoredTranscript } from "../../memory/ports/store.js";
import { SEPARATOR } from "./user-range.js";

/** A transcript's row as the engines' grouped queries answer it: the first messages as "createdAt␟key". */
export interface TranscriptRow {
  messages: number | string;
  first_at: string | null;
  last_at: string | null;
  first: string | null;
  first_user: string | null;
}

/** A row's counts as a `StoredTranscript` (the keys cut from their "createdAt␟key"). */
export function transcriptOf(label: string, row: TranscriptRow): StoredTranscript {
  const keyOf = (pair: string | null) => (pair === null ? null : pair.slice(pair.indexOf(SEPARATOR) + 1));
  return {
    label,
    messages: Number(row.messages),
    firstAt: row.first_at ?? "",
    lastAt: row.last_at ?? "",
    firstKey: keyOf(row.first) ?? "",
    firstUserKey: keyOf(row.first_user),
  };
}
