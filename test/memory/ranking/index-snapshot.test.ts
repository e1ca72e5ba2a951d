import { buildRecallIndex, indexSource, roomFor, traitsOfColumns } from "../../../src/memory/ranking/index-source.js";
import { rankHybrid } from "../../../src/memory/ranking/hybrid.js";
import { RecallIndex } from "../../../src/memory/ranking/recall-index.js";
import { checksum, Pieces } from "../../../src/memory/ranking/varints.js";
import { tokenize } from "../../../src/memory/ranking/tokenize.js";

interface Row {
  id: string;
  ns: string;
  tokens: string;
  label: string | null;
  speaker: string | null;
  asks: boolean;
}

const WORDS = "lisbon tram castle sardines tile kitchen pottery teapot grandmother utrecht observatory astronomer pepper cat paw garden coffee train".split(" ");

/** Seeded rows over two sessions: the same on every run. */
function rows(count: number, seed = 3): Row[] {
  let a = seed;
  const random = () => ((a = (a * 1103515245 + 12345) % 2147483648) / 2147483648);
  return Array.from({ length: count }, (_, i) => {
    const words = Array.from({ length: 3 + Math.floor(random() * 9) }, () => WORDS[Math.floor(random() * WORDS.length)] as string);
    const asks = random() < 0.2;
    return {
      id: String(i + 1),
      ns: `t/u/sessions/s${i % 2}/messages`,
      tokens: tokenize(`${words.join(" ")}${asks ? "?" : "."}`).join(" "),
      label: i % 2 === 0 ? "user" : "assistant",
      speaker: i % 2 === 0 ? "Ana" : null,
      asks,
    };
  });
}

const build = (list: readonly Row[]) => buildRecallIndex(list, (row) => ({ id: row.id, group: row.ns, order: Number(row.id) }));
const QUERIES = ["castle tram lisbon", "pottery teapot for my grandmother", "what colour is the cat pepper", "coffee"];

function rankingsOf(index: RecallIndex) {
  return QUERIES.map((query) => rankHybrid(tokenize(query), indexSource(index), undefined, { limit: 10 }).map((hit) => [hit.id, hit.score]));
}

/** Expects `index` to rank, count and tell of each of `ids` what `expected` does. */
function expectAnswersAlike(index: RecallIndex, expected: RecallIndex, ids: readonly string[]): void {
  expect(index.size).toBe(expected.size);
  expect(rankingsOf(index)).toEqual(rankingsOf(expected));
  expect(index.neighboursOf(ids)).toEqual(expected.neighboursOf(ids));
  expect(index.answersOf(ids)).toEqual(expected.answersOf(ids));
  expect(index.groupsOf(ids)).toEqual(expected.groupsOf(ids));
  expect(index.speakersOf(ids)).toEqual(expected.speakersOf(ids));
  expect(index.labelsOf(ids)).toEqual(expected.labelsOf(ids));
  expect(index.termsOf(ids)).toEqual(expected.termsOf(ids));
  expect(index.heldOf(ids, ["zebra", "tea", "common"])).toEqual(expected.heldOf(ids, ["zebra", "tea", "common"]));
  expect(index.lengthsOf(ids)).toEqual(expected.lengthsOf(ids));
  expect(index.newest(30)).toEqual(expected.newest(30));
}

describe("RecallIndex snapshots", () => {
  it("restores an index that ranks, neighbours and labels exactly as the one it came from", () => {
    const list = rows(300);
    const index = build(list);
    const restored = RecallIndex.fromSnapshot(index.toSnapshot());
    expect(restored.size).toBe(300);
    expectAnswersAlike(restored, index, list.map((row) => row.id));
  });

  it("after adds, rewrites and removals, holds what a fresh build of the live rows holds, byte for byte", () => {
    const list = rows(200);
    const index = build(list.slice(0, 150));
    const add = (row: Row) => index.add(row.id, row.tokens.split(" "), row.ns, Number(row.id), traitsOfColumns(row));
    for (const row of list.slice(150)) add(row);
    const removed = new Set(["3", "40", "151", "199"]);
    for (const id of removed) index.remove(id);
    const rewritten = { ...(list[9] as Row), tokens: tokenize("a brand new zeppelin").join(" ") };
    add(rewritten);
    const live = list.filter((row) => !removed.has(row.id)).map((row) => (row.id === rewritten.id ? rewritten : row));
    const fresh = build(live);
    const bytes = index.toSnapshot();
    expect(Buffer.from(bytes).equals(Buffer.from(fresh.toSnapshot()))).toBe(true);
    expect(rankingsOf(RecallIndex.fromSnapshot(bytes))).toEqual(rankingsOf(fresh));
  });

  it.each([
    ["ids that are their orders", (row: Row) => row.id],
    ["ids of their own", (row: Row) => `m-${row.id}`],
  ])("changed after its restore (%s), answers as the index it came from changed alike", (_what, idOf) => {
    const list = rows(400);
    const make = (part: readonly Row[]) => buildRecallIndex(part, (row) => ({ id: idOf(row), group: row.ns, order: Number(row.id) }));
    const original = make(list.slice(0, 300));
    const restored = RecallIndex.fromSnapshot(original.toSnapshot());
    const ids = list.map(idOf);
    for (const index of [original, restored]) {
      const add = (row: Row, ns = row.ns) => index.add(idOf(row), row.tokens.split(" "), ns, Number(row.id), traitsOfColumns(row));
      for (const row of list.slice(300, 350)) add(row);
      add({ ...(list[10] as Row), tokens: tokenize("a brand new zeppelin").join(" ") });
      add(list[11] as Row, "t/u/sessions/s7/messages");
      for (const row of list.slice(20, 40)) index.remove(idOf(row));
      index.remove(idOf(list[320] as Row));
      expect(index.has(idOf(list[25] as Row))).toBe(false);
      expect(index.has(idOf(list[10] as Row))).toBe(true);
    }
    expectAnswersAlike(restored, original, ids);
    // A quarter dead: both compact, and go on answering alike.
    for (const index of [original, restored]) for (const row of list.slice(100, 220)) index.remove(idOf(row));
    expectAnswersAlike(restored, original, ids);
    expect(Buffer.from(restored.toSnapshot()).equals(Buffer.from(original.toSnapshot()))).toBe(true);
  });

  it.each([
    ["orders that are their ids", (row: Row) => Number(row.id)],
    ["orders that are not whole numbers", (row: Row) => Number(row.id) + 0.5],
  ])("restored with room for the rows about to be added (%s), adds them without growing and answers as a build", (_what, orderOf) => {
    const list = rows(260);
    const make = (part: readonly Row[]) => buildRecallIndex(part, (row) => ({ id: row.id, group: row.ns, order: orderOf(row) }));
    const later = [...list.slice(200), { ...(list[5] as Row), tokens: tokenize("a brand new zeppelin over utrecht").join(" ") }];
    const bytes = make(list.slice(0, 200)).toSnapshot();
    const [roomy, tight, expected] = [RecallIndex.fromSnapshot(bytes, {}, roomFor(later)), RecallIndex.fromSnapshot(bytes), make(list.slice(0, 200))];
    expect(roomy.bytes).toBeGreaterThan(tight.bytes);
    for (const index of [roomy, tight, expected]) for (const row of later) index.add(row.id, row.tokens.split(" "), row.ns, orderOf(row), traitsOfColumns(row));
    // The one restored without room doubled its arrays on the first add: more than the room made.
    expect(roomy.bytes).toBeLessThan(tight.bytes);
    expectAnswersAlike(roomy, expected, list.map((row) => row.id));
    expectAnswersAlike(tight, expected, list.map((row) => row.id));
  });

  it("reads a snapshot where it lies in a larger buffer, at an odd offset, orders that are not whole numbers included", () => {
    const list = rows(120);
    const index = buildRecallIndex(list, (row) => ({ id: `m-${row.id}`, group: row.ns, order: Number(row.id) + 0.5 }));
    const bytes = index.toSnapshot();
    // A Buffer, as pg and better-sqlite3 give: its `slice` is a view, not a copy.
    const pool = Buffer.alloc(bytes.length + 8);
    pool.set(bytes, 3);
    const restored = RecallIndex.fromSnapshot(pool.subarray(3, 3 + bytes.length));
    expect(restored.newest(3)).toEqual(["m-120", "m-119", "m-118"]);
    expectAnswersAlike(restored, index, list.map((row) => `m-${row.id}`));
  });

  it("finds terms of any script after a restore: their bytes' order is code point order, which `<` is not", () => {
    // U+FF5A (full-width z) sorts before an astral letter by code point, after it by UTF-16 code unit.
    const words = ["zebra", "été", "ｚｅｂｒａ", "𝒜lpha", "naïve", "東京", "z", "ÿ"];
    const list = words.map((word, i) => ({ id: String(i + 1), ns: "t/u/sessions/s1/messages", tokens: `${word} common`, label: "user", speaker: "", asks: false }));
    const index = build(list);
    const restored = RecallIndex.fromSnapshot(index.toSnapshot());
    for (const word of words) {
      expect([...restored.score([word], 3).keys()]).toEqual([...index.score([word], 3).keys()]);
      expect(restored.documentFrequency(word)).toBe(1);
    }
    expect(restored.documentFrequency("zebr")).toBe(0);
    expect([...(restored.termsOf(["3"]).get("3") ?? [])].sort()).toEqual(["common", "ｚｅｂｒａ"]);
    expectAnswersAlike(restored, index, list.map((row) => row.id));
  });

  it("keeps nothing of a removed document: its only term is not in the bytes", () => {
    const list = rows(50);
    const index = build([...list, { id: "51", ns: "t/u/sessions/s9/messages", tokens: tokenize("Xylophonist Quetzalcoatl").join(" "), label: "user", speaker: "Zebulon", asks: false }]);
    expect(Buffer.from(index.toSnapshot()).toString("latin1")).toMatch(/quetzalcoatl/i);
    index.remove("51");
    const text = Buffer.from(index.toSnapshot()).toString("latin1");
    expect(text).not.toMatch(/quetzalcoatl|xylophon|zebulon|s9/i);
  });

  it.each([
    ["empty bytes", () => new Uint8Array(0)],
    ["another format", () => new Uint8Array(64).fill(7)],
    ["a truncated snapshot", () => build(rows(20)).toSnapshot().subarray(0, 200)],
    [
      "document frequencies that do not match its documents",
      () => {
        const bytes = build(rows(5)).toSnapshot();
        const header = new DataView(bytes.buffer, bytes.byteOffset, 48);
        const [jsonLength, terms, termBytes] = [5, 7, 8].map((word) => header.getUint32(4 * word, true)) as [number, number, number];
        const first = ((48 + jsonLength + termBytes + 7) & ~7) + terms; // after the terms' one-byte lengths
        bytes[first] = (bytes[first] as number) + 1;
        return bytes;
      },
    ],
    [
      "a term reference out of range (a small snapshot's pairs are read on its restore)",
      () => {
        const bytes = build(rows(5)).toSnapshot();
        const header = new DataView(bytes.buffer, bytes.byteOffset, 48);
        const pairStart = bytes.length - header.getUint32(40, true) - header.getUint32(36, true);
        bytes[pairStart] = 0x7e; // the first pair's term: 63, past the snapshot's terms
        header.setUint32(44, checksum(bytes.slice(pairStart)), true);
        return bytes;
      },
    ],
    [
      "terms out of order",
      () => {
        const bytes = build(rows(5)).toSnapshot();
        const jsonLength = new DataView(bytes.buffer, bytes.byteOffset, 48).getUint32(20, true);
        bytes[48 + jsonLength] = 0x7a; // the first term's first letter a "z": before the second no more
        return bytes;
      },
    ],
  ])("refuses %s with a clear error", (_what, bytes) => {
    expect(() => RecallIndex.fromSnapshot(bytes())).toThrow(/recall index snapshot: /);
  });

  describe("reads a large snapshot's pairs of a document and posting list of a term when first asked for", () => {
    // 6,000 rows: pairs and lists of more than 64 KiB, which a restore leaves as bytes.
    const original = build(rows(6000));

    /**
     * `original`'s snapshot with the first byte of its pairs (`region` "pairs") or of its posting
     * lists set to `value`, and its checksum made again (as an encoder's mistake would leave it)
     * unless `keepChecksum` (as damage in storage would).
     */
    function damaged(region: "pairs" | "lists", value: number, keepChecksum = false): Uint8Array {
      const bytes = original.toSnapshot();
      const header = new DataView(bytes.buffer, bytes.byteOffset, 48);
      const [pairBytes, listBytes] = [header.getUint32(36, true), header.getUint32(40, true)];
      const pairStart = bytes.length - listBytes - pairBytes;
      bytes[region === "pairs" ? pairStart : pairStart + pairBytes] = value;
      if (!keepChecksum) header.setUint32(44, checksum(bytes.slice(pairStart)), true);
      return bytes;
    }

    it.each(["pairs", "lists"] as const)("refuses damaged %s on its restore, by their checksum", (region) => {
      expect(() => RecallIndex.fromSnapshot(damaged(region, 0x7e, true))).toThrow(/recall index snapshot: .*checksum/);
    });

    it("a damaged document fails only what reads its pairs, with a clear error", () => {
      // The first document's first pair: term 63, past the snapshot's terms.
      const restored = RecallIndex.fromSnapshot(damaged("pairs", 0x7e));
      expect(restored.termsOf(["2"])).toEqual(original.termsOf(["2"]));
      expect(() => restored.termsOf(["1"])).toThrow(/recall index snapshot: term reference/);
    });

    it("a damaged posting list fails only the queries of its term, with a clear error", () => {
      // The first term's first posting: a varint that runs on into the next ones.
      const restored = RecallIndex.fromSnapshot(damaged("lists", 0xff));
      const [first, other] = [original.snapshotState().terms[0] as string, "tram"];
      expect([...restored.score([other], 10)]).toEqual([...original.score([other], 10)]);
      expect(() => restored.score([first], 10)).toThrow(/recall index snapshot: /);
    });

    /** `bytes` cut into pieces at seeded places, empty pieces and pieces of one byte among them (as a COPY's chunks may come). */
    function cut(bytes: Uint8Array, seed: number): Buffer[] {
      const whole = Buffer.from(bytes);
      const pieces: Buffer[] = [];
      let a = seed;
      for (let at = 0; at < whole.length; ) {
        a = (a * 1103515245 + 12345) % 2147483648;
        const size = a % 5 === 0 ? a % 3 : 1 + (a % 9000);
        pieces.push(whole.subarray(at, at + size));
        at += size;
      }
      return pieces;
    }

    it("restores from pieces cut anywhere (a COPY's chunks), reading pairs and lists across the cuts, as from the bytes whole", () => {
      const bytes = original.toSnapshot();
      for (const seed of [1, 2, 3]) {
        const pieces = cut(bytes, seed);
        expect(checksum(new Pieces(pieces))).toBe(checksum(bytes));
        const restored = RecallIndex.fromSnapshot(pieces);
        expectAnswersAlike(restored, original, ["1", "2", "777", "5999", "6000"]);
        for (const word of WORDS) expect([...restored.score([word], 7000)]).toEqual([...original.score([word], 7000)]);
        // Every pair read across the cuts too (a snapshot written reads them all).
        expect(Buffer.from(restored.toSnapshot()).equals(Buffer.from(bytes))).toBe(true);
      }
      // A small snapshot (read whole on its restore) in pieces of a byte each.
      const small = build(rows(40));
      expectAnswersAlike(RecallIndex.fromSnapshot([...Buffer.from(small.toSnapshot())].map((byte) => Buffer.from([byte]))), small, ["1", "40"]);
    });

    it("refuses damaged pieces by their checksum, and pieces cut short", () => {
      const pieces = cut(damaged("lists", 0x7e, true), 4);
      expect(() => RecallIndex.fromSnapshot(pieces)).toThrow(/recall index snapshot: .*checksum/);
      const whole = cut(original.toSnapshot(), 5);
      expect(() => RecallIndex.fromSnapshot(whole.slice(0, -1))).toThrow(/recall index snapshot: /);
    });

    it("every term's list read on demand is the one a full build packs, whatever was read before a change", () => {
      const list = rows(6300);
      const [fresh, restored] = [build(list.slice(0, 6000)), RecallIndex.fromSnapshot(original.toSnapshot())];
      // Some terms read before the changes, the others after them.
      expect(rankingsOf(restored).slice(0, 2)).toEqual(rankingsOf(fresh).slice(0, 2));
      for (const index of [fresh, restored]) {
        for (const row of list.slice(6000)) index.add(row.id, row.tokens.split(" "), row.ns, Number(row.id), traitsOfColumns(row));
        for (const row of list.slice(0, 30)) index.remove(row.id);
      }
      for (const word of WORDS) expect([...restored.score([word], 7000)]).toEqual([...fresh.score([word], 7000)]);
      expectAnswersAlike(restored, fresh, list.map((row) => row.id));
      expect(Buffer.from(restored.toSnapshot()).equals(Buffer.from(fresh.toSnapshot()))).toBe(true);
    });
  });
});
