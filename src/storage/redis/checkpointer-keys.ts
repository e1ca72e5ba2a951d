/**
 * Key layout and value encoding of `RedisCheckpointer`, on plain strings, hashes and sorted sets.
 * A thread owns exactly five keys, all sharing the hash tag `{thread}` (one cluster slot, so
 * MULTI works on a cluster too):
 *
 * - `P:{T}:cp`    hash   `ns␀checkpointId` → checkpoint record (JSON; checkpoint without values)
 * - `P:{T}:idx`   zset   `ns␀checkpointId`, all scores 0, so lexical order = checkpoint order
 * - `P:{T}:blobs` hash   `ns␀channel␀version` → one channel value, stored once per version
 * - `P:{T}:w`     hash   `ns␀checkpointId␀taskId␀idx` → one pending write
 * - `P:{T}:wi`    zset   the same write fields, so a checkpoint's writes are one lexical range
 *
 * A fixed, small key set per thread keeps "refresh the TTL on every write" cheap (five EXPIREs).
 * Binary values are base64 text. Namespaces and ids must not contain NUL (U+0000).
 */
export const SEP = "\u0000";
const AFTER_SEP = "\u0001";

/** The five keys of one thread. */
export interface ThreadKeys {
  cp: string;
  idx: string;
  blobs: string;
  w: string;
  wi: string;
}

export function threadKeys(prefix: string, threadId: string): ThreadKeys {
  const base = `${prefix}:{${encodeURIComponent(threadId)}}`;
  return { cp: `${base}:cp`, idx: `${base}:idx`, blobs: `${base}:blobs`, w: `${base}:w`, wi: `${base}:wi` };
}

export function allKeys(keys: ThreadKeys): string[] {
  return [keys.cp, keys.idx, keys.blobs, keys.w, keys.wi];
}

/** SCAN pattern matching every thread's `idx` key under `prefix`. */
export function indexPattern(prefix: string): string {
  return `${prefix.replace(/[*?[\]\\]/g, (c) => `\\${c}`)}:{*}:idx`;
}

/** The thread id of an `idx` key found by `indexPattern`, or undefined for a foreign key. */
export function threadOfIndexKey(prefix: string, key: string): string | undefined {
  const head = `${prefix}:{`;
  const tail = "}:idx";
  if (!key.startsWith(head) || !key.endsWith(tail)) return undefined;
  try {
    return decodeURIComponent(key.slice(head.length, key.length - tail.length));
  } catch {
    return undefined;
  }
}

export const checkpointField = (ns: string, id: string): string => `${ns}${SEP}${id}`;
export const blobField = (ns: string, channel: string, version: string): string =>
  `${ns}${SEP}${channel}${SEP}${version}`;
export const writeField = (ns: string, id: string, taskId: string, idx: number): string =>
  `${ns}${SEP}${id}${SEP}${taskId}${SEP}${idx}`;

/** Splits an `idx` member back into namespace and checkpoint id. */
export function splitCheckpointField(member: string): { ns: string; id: string } {
  const at = member.lastIndexOf(SEP);
  return { ns: member.slice(0, at), id: member.slice(at + 1) };
}

/** ZRANGE BYLEX REV bounds (high, low) of a namespace's checkpoints, optionally before an id. */
export function namespaceRange(ns: string, beforeId?: string): [string, string] {
  const high = beforeId === undefined ? `(${ns}${AFTER_SEP}` : `(${ns}${SEP}${beforeId}`;
  return [high, `[${ns}${SEP}`];
}

/** ZRANGE BYLEX bounds (low, high) of one checkpoint's writes. */
export function writesRange(ns: string, id: string): [string, string] {
  return [`[${ns}${SEP}${id}${SEP}`, `(${ns}${SEP}${id}${AFTER_SEP}`];
}

/** A checkpoint as stored in the `cp` hash. */
export interface CheckpointRecord {
  parent: string | null;
  checkpointType: string;
  checkpoint: string;
  metadataType: string;
  metadata: string;
}

/** A pending write as stored in the `w` hash. */
export interface WriteRecord {
  taskId: string;
  taskPath: string;
  idx: number;
  channel: string;
  type: string;
  value: string;
}

/** A channel value as stored in the `blobs` hash: [type, base64 | null]. */
export type BlobRecord = [string, string | null];

export const toBase64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64");
export const fromBase64 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "base64"));
