import fc from "fast-check";
import { decodeVector, encodeVector, encodedBytes } from "../../../src/storage/shared/vector-codec.js";

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += Number(a[i]) * Number(b[i]);
    na += Number(a[i]) ** 2;
    nb += Number(b[i]) ** 2;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** A deterministic pseudo-random unit vector, like an embedding. */
function embedding(seed: number, dims: number): number[] {
  let x = seed * 2654435761;
  const v = Array.from({ length: dims }, () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648 - 0.5;
  });
  const norm = Math.hypot(...v);
  return v.map((y) => y / norm);
}

/** The encoding as first written, one checked `writeInt8` per dimension: the bytes `encodeVector` must keep. */
function encodeByWrites(vector: ArrayLike<number>): Buffer {
  let max = 0;
  for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(Number(vector[i])));
  const scale = Number.isFinite(max) && max > 0 ? max / 127 : 0;
  const blob = Buffer.alloc(5 + vector.length);
  blob[0] = 1;
  blob.writeFloatLE(scale, 1);
  for (let i = 0; i < vector.length; i++) {
    const q = scale === 0 ? 0 : Math.round(Number(vector[i]) / scale);
    blob.writeInt8(Number.isFinite(q) ? Math.max(-127, Math.min(127, q)) : 0, 5 + i);
  }
  return blob;
}

describe("vector codec", () => {
  it("writes the same bytes as one writeInt8 per dimension (property)", () => {
    const value = fc.oneof(fc.double({ min: -2, max: 2 }), fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 1e-300));
    fc.assert(
      fc.property(fc.array(value, { maxLength: 64 }), (vector) => {
        expect(encodeVector(vector).equals(encodeByWrites(vector))).toBe(true);
        expect(encodeVector(new Float32Array(vector)).equals(encodeByWrites(new Float32Array(vector)))).toBe(true);
      }),
      { numRuns: 500 },
    );
    const full = embedding(7, 1536);
    expect(encodeVector(full).equals(encodeByWrites(full))).toBe(true);
  });

  it("stores a 1,536-dimension embedding in 1,541 bytes instead of 6,144", () => {
    const blob = encodeVector(embedding(1, 1536));
    expect(blob.length).toBe(1541);
    expect(encodedBytes(1536)).toBe(1541);
    expect(new Float32Array(embedding(1, 1536)).byteLength).toBe(6144);
  });

  it("keeps every value within half a quantisation step and each similarity within 0.002", () => {
    const vectors = [1, 2, 3, 4, 5, 6].map((seed) => embedding(seed, 1536));
    const decoded = vectors.map((v) => decodeVector(encodeVector(v), v.length) as Float32Array);
    for (const [k, v] of vectors.entries()) {
      const step = Math.max(...v.map(Math.abs)) / 127;
      const d = decoded[k] as Float32Array;
      expect(Math.max(...v.map((x, i) => Math.abs(x - (d[i] as number))))).toBeLessThanOrEqual(step / 2 + 1e-7);
      for (const [j, w] of vectors.entries()) {
        expect(Math.abs(cosine(d, decoded[j] as Float32Array) - cosine(v, w))).toBeLessThan(0.002);
      }
    }
  });

  it("keeps the order of similarities to a query (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 8, max: 512 }), (seed, dims) => {
        const query = embedding(seed, dims);
        const noise = embedding(seed + 1, dims);
        const near = query.map((x, i) => x + 0.05 * (noise[i] as number));
        const far = embedding(seed + 2, dims);
        const decode = (v: number[]) => decodeVector(encodeVector(v), dims) as Float32Array;
        return cosine(query, decode(near)) > cosine(query, decode(far));
      }),
      { numRuns: 50 },
    );
  });

  it("reads the Float32 BLOBs written before the compact format", () => {
    const old = Buffer.from(new Float32Array([0.5, -0.25, 0.125]).buffer);
    expect(Array.from(decodeVector(old, 3) ?? [])).toEqual([0.5, -0.25, 0.125]);
  });

  it("keeps the zero vector zero, and refuses a BLOB of neither format", () => {
    expect(Array.from(decodeVector(encodeVector([0, 0, 0]), 3) ?? [])).toEqual([0, 0, 0]);
    expect(decodeVector(Buffer.from([1, 2, 3]), 3)).toBeUndefined();
    const wrongTag = encodeVector([0.1, 0.2, 0.3]);
    wrongTag[0] = 9;
    expect(decodeVector(wrongTag, 3)).toBeUndefined();
  });
});
