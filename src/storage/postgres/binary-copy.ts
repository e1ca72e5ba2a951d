import type pg from "pg";

/** What every binary COPY output starts with (PostgreSQL's COPY, "Binary Format"). */
const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

let copyStreams: Promise<typeof import("pg-copy-streams")> | undefined;

/**
 * The rows `select` returns, each field as its bytes in binary form (a bytea's bytes as they are, a
 * text's UTF-8; null for NULL), read with `COPY (select) TO STDOUT (FORMAT binary)`. For large
 * bytea values: a plain query returns them as hex text that pg turns back into bytes, about three
 * times the time for a 3 MB value. COPY takes no parameters: `select` must hold its values as
 * literals (`escapeLiteral`). pg-copy-streams is loaded on first use (a fresh instance's first
 * snapshot read), not with the store.
 */
export async function selectBinary(db: pg.ClientBase, select: string): Promise<(Buffer | null)[][]> {
  // Kept once loaded: each import() of a loaded module still resolves its specifier, 0.6 ms of a
  // fresh instance's first recall of each user under tsx (CPU profile of 476 first searches).
  const { to: copyTo } = await (copyStreams ??= import("pg-copy-streams"));
  const chunks: Buffer[] = [];
  for await (const chunk of db.query(copyTo(`COPY (${select}) TO STDOUT (FORMAT binary)`))) chunks.push(chunk as Buffer);
  return binaryCopyRows(Buffer.concat(chunks));
}

/** The rows of a binary COPY's output; throws on output that is not one. Pure. */
export function binaryCopyRows(out: Buffer): (Buffer | null)[][] {
  if (out.length < 19 || !out.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new Error("binary COPY output: no signature");
  // The flags, then the header extension's length and the extension itself.
  let at = SIGNATURE.length + 8 + out.readInt32BE(SIGNATURE.length + 4);
  const rows: (Buffer | null)[][] = [];
  for (;;) {
    const fields = out.readInt16BE(at);
    at += 2;
    if (fields === -1) return rows;
    const row: (Buffer | null)[] = [];
    for (let field = 0; field < fields; field++) {
      const length = out.readInt32BE(at);
      at += 4;
      if (length === -1) {
        row.push(null);
        continue;
      }
      if (at + length > out.length) throw new Error("binary COPY output: truncated");
      row.push(out.subarray(at, at + length));
      at += length;
    }
    rows.push(row);
  }
}
