import { madeUpIndex, recallSteps, restoreAndRank, snapshotAsStored, warmRecall } from "../../src/memory/recall-warm-up.js";

describe("warmRecall", () => {
  it("runs its steps only while idle, and stops when asked", async () => {
    const stop = new AbortController();
    let asked = 0;
    // Idle for the first two asks only: two steps run, then it waits until stopped.
    const warming = warmRecall(() => asked++ < 2, { pollMs: 1, signal: stop.signal });
    await new Promise((resolve) => setTimeout(resolve, 30));
    stop.abort();
    expect(await warming).toBeGreaterThan(0);
    expect(asked).toBeGreaterThan(2);
  });

  it("restores a snapshot whose pairs and lists are left as bytes, as a long-standing user's, and ranks on it", () => {
    const bytes = madeUpIndex().toSnapshot();
    const header = new DataView(bytes.buffer, bytes.byteOffset, 48);
    // Pairs and posting lists of 64 KB or more stay bytes on a restore (index-snapshot.ts, LAZY_FROM_BYTES).
    expect(header.getUint32(36, true) + header.getUint32(40, true)).toBeGreaterThanOrEqual(64 * 1024);
    for (let n = 0; n < 4; n++) expect(restoreAndRank(bytes, n)).toBe(8);
    // Restored as the stores hand a snapshot over (a Buffer of its own; Buffers in pieces, each part
    // of it read across them), ranking alike.
    const { whole, pieces } = snapshotAsStored(madeUpIndex());
    expect([Buffer.isBuffer(whole), whole.byteOffset, whole.buffer.byteLength]).toEqual([true, 0, bytes.length]);
    expect(Buffer.concat(pieces).equals(whole) && pieces.every((piece) => Buffer.isBuffer(piece) && piece.length < header.getUint32(36, true))).toBe(true);
    expect([restoreAndRank(whole, 0), restoreAndRank(pieces, 1)]).toEqual([8, 8]);
    // The build in steps of 100 documents, the snapshot, then the restores.
    expect([...recallSteps()].length).toBe(6 + 1 + 8);
  });
});
