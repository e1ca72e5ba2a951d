import { DocTable } from "./doc-table.js";
import { compareCodePoints } from "./sorted-terms.js";

/**
 * The live documents of a `RecallIndex` in canonical form: what `buildRecallIndex` would hold if
 * built from those documents alone. Documents are in slot order sorted by `order` (a fresh build adds
 * rows in id order, and the stores' order is the row id); terms are numbered in ascending order (code
 * point order, their UTF-8 bytes' order: a restored index finds them by binary search over them) and names
 * in order of first appearance over that order (per document: its group, then its label and
 * speaker); a term or name only dead documents used is gone. So a snapshot holds nothing of a
 * removed document, and an index restored from it ranks as a fresh build does.
 */
export interface IndexState {
  terms: string[];
  names: string[];
  ids: string[];
  /** `count` documents; every column exactly `count` long (`starts` one more), `pool` exactly `starts[count]`. */
  docs: DocTable;
}

/** The canonical state of the documents of `table` whose `ids[slot]` is set. Pure: `table`'s contents are read only. */
export function canonicalState(table: DocTable, termList: readonly string[], nameList: readonly string[], ids: readonly (string | undefined)[]): IndexState {
  // A restored table's pairs not read yet are read now (what they hold does not change).
  table.readAllPairs();
  const live: number[] = [];
  for (let slot = 0; slot < table.count; slot++) if (ids[slot] !== undefined) live.push(slot);
  // Stable: equal orders keep slot order, as a build keeps id order.
  live.sort((a, b) => (table.orders[a] as number) - (table.orders[b] as number) || a - b);
  const n = live.length;
  let pairs = 0;
  for (const slot of live) pairs += (table.starts[slot + 1] as number) - (table.starts[slot] as number);
  const docs = DocTable.ofSize(n, pairs / 2);
  const nameIds = new Int32Array(nameList.length).fill(-1);
  const names: string[] = [];
  const name = (old: number): number => {
    if (old < 0) return -1;
    if (nameIds[old] === -1) {
      nameIds[old] = names.length;
      names.push(nameList[old] as string);
    }
    return nameIds[old] as number;
  };
  // The live documents' terms in ascending order, numbered so.
  const used = new Uint8Array(termList.length);
  for (const slot of live) for (let i = table.starts[slot] as number; i < (table.starts[slot + 1] as number); i += 2) used[table.pool[i] as number] = 1;
  const byTerm = (a: number, b: number): number => compareCodePoints(termList[a] as string, termList[b] as string);
  const olds = [...used.keys()].filter((old) => used[old] === 1).sort(byTerm);
  const termIds = new Int32Array(termList.length).fill(-1);
  olds.forEach((old, to) => (termIds[old] = to));
  const terms = olds.map((old) => termList[old] as string);
  const out: string[] = [];
  let end = 0;
  live.forEach((slot, to) => {
    docs.groups[to] = name(table.groups[slot] as number);
    for (let i = table.starts[slot] as number; i < (table.starts[slot + 1] as number); i += 2) {
      docs.pool[end++] = termIds[table.pool[i] as number] as number;
      docs.pool[end++] = table.pool[i + 1] as number;
    }
    docs.starts[to + 1] = end;
    docs.labels[to] = name(table.labels[slot] as number);
    docs.speakers[to] = name(table.speakers[slot] as number);
    docs.lengths[to] = table.lengths[slot] as number;
    docs.orders[to] = table.orders[slot] as number;
    docs.asks[to] = table.asks[slot] as number;
    out.push(ids[slot] as string);
  });
  return { terms, names, ids: out, docs };
}
