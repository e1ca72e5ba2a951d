import { LazyItems, Pieces, VarintReader, VarintWriter } from "../../../src/memory/ranking/varints.js";

/** Values of every varint length up to 2^53. */
const VALUES = [0, 1, 127, 128, 300, 16_383, 16_384, 2 ** 21, 2 ** 28 + 5, 2 ** 35 - 1, 2 ** 42 + 9, Number.MAX_SAFE_INTEGER];

function written(values: readonly number[]): Buffer {
  const writer = new VarintWriter();
  for (const value of values) writer.write(value);
  return Buffer.from(writer.written);
}

describe("Pieces (bytes as a COPY gave them) and the items read from them", () => {
  it("reads each item of a LazyItems whole when a cut falls anywhere in it, in place when one piece holds it", () => {
    // Item i: VALUES[i], then (the last item) all of them again.
    const bytes = written([...VALUES, ...VALUES]);
    const starts = new Int32Array(VALUES.length + 2);
    for (let i = 0; i < VALUES.length; i++) starts[i + 1] = (starts[i] as number) + written([VALUES[i] as number]).length;
    starts[VALUES.length + 1] = bytes.length;
    for (let at = 0; at <= bytes.length; at++) {
      const pieces = new Pieces([bytes.subarray(0, at), Buffer.alloc(0), bytes.subarray(at)]);
      const items = new LazyItems(pieces, starts);
      // Read out of order: the last item first.
      const last = items.open(VALUES.length) as VarintReader;
      expect(VALUES.map(() => last.read())).toEqual(VALUES);
      items.close(VALUES.length, last);
      VALUES.forEach((value, i) => {
        const reader = items.open(i) as VarintReader;
        expect(reader.read()).toBe(value);
        items.close(i, reader);
      });
      expect([items.done, items.open(0)]).toEqual([true, null]);
    }
  });

  it("reads no byte past an item's end, and refuses an item read short of it", () => {
    // Item 0: 1; item 1: 2 and 300, across the cut.
    const bytes = written([1, 2, 300]);
    const items = new LazyItems(new Pieces([bytes.subarray(0, 3), bytes.subarray(3)]), new Int32Array([0, 1, 4]));
    const first = items.open(0) as VarintReader;
    first.read();
    expect(() => first.read()).toThrow(/truncated/);
    const second = items.open(1) as VarintReader;
    second.read();
    expect(() => items.close(1, second)).toThrow(/do not match its length/);
  });

  it("gives a range as a view of the piece holding it, else as a copy, and slices into views", () => {
    const [a, b] = [Buffer.from("abcdef"), Buffer.from("ghij")];
    const pieces = new Pieces([a, Buffer.alloc(0), b]);
    expect(pieces.length).toBe(10);
    const within = pieces.bytes(6, 9);
    expect([Buffer.from(within).toString(), within.buffer === b.buffer && within.byteOffset === b.byteOffset]).toEqual(["ghi", true]);
    const across = pieces.bytes(4, 8);
    a.fill(0x2e);
    expect(Buffer.from(across).toString()).toBe("efgh");
    const slice = pieces.slice(5, 8);
    expect(slice.pieces.map((piece) => Buffer.from(piece).toString())).toEqual([".", "gh"]);
    expect(() => pieces.bytes(8, 11)).toThrow(/truncated/);
  });
});
