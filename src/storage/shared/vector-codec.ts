/**
 * How our stores keep an embedding on disk: one signed byte per dimension and the scale that
 * turns the bytes back into numbers, a quarter of the Float32 bytes (1,541 bytes instead of 6,144
 * for a 1,536-dimension OpenAI embedding). Recall compares vectors by cosine similarity only, and
 * a per-vector scale keeps each value within half a step (max |x| / 254) of the original, so a
 * similarity moves by about 0.001 (measured in the codec's tests).
 *
 * Layout: byte 0 is the format tag (1), bytes 1–4 the scale as a little-endian Float32, then the
 * `dims` int8 values. A BLOB of exactly `4 × dims` bytes is the format written before, a
 * platform-order Float32 array; it is still read as such.
 */
const INT8_TAG = 1;
const HEADER_BYTES = 5;

/** A vector as the compact BLOB our stores write (see the module comment). */
export function encodeVector(vector: ArrayLike<number>): Buffer {
  const dims = vector.length;
  let max = 0;
  for (let i = 0; i < dims; i++) max = Math.max(max, Math.abs(Number(vector[i])));
  const scale = Number.isFinite(max) && max > 0 ? max / 127 : 0;
  const blob = Buffer.alloc(HEADER_BYTES + dims);
  blob[0] = INT8_TAG;
  blob.writeFloatLE(scale, 1);
  // Through an Int8Array view, not one `writeInt8` call per dimension: a store's first write runs
  // on cold code (a fresh instance's first turn), where 1,536 checked calls cost about a millisecond.
  const values = new Int8Array(blob.buffer, blob.byteOffset + HEADER_BYTES, dims);
  for (let i = 0; i < dims; i++) {
    const q = scale === 0 ? 0 : Math.round(Number(vector[i]) / scale);
    values[i] = Number.isFinite(q) ? Math.max(-127, Math.min(127, q)) : 0;
  }
  return blob;
}

/**
 * A stored vector of `dims` dimensions back as numbers: the compact format, or the Float32 BLOB
 * written before it. Undefined when the BLOB is neither (a damaged row is skipped, not guessed at).
 */
export function decodeVector(blob: Uint8Array, dims: number): Float32Array | undefined {
  if (blob.length === 4 * dims) return new Float32Array(new Uint8Array(blob).buffer);
  if (blob.length !== HEADER_BYTES + dims || blob[0] !== INT8_TAG) return undefined;
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const scale = view.getFloat32(1, true);
  const vector = new Float32Array(dims);
  for (let i = 0; i < dims; i++) vector[i] = view.getInt8(HEADER_BYTES + i) * scale;
  return vector;
}

/** Bytes `encodeVector` writes for a vector of `dims` dimensions. */
export function encodedBytes(dims: number): number {
  return HEADER_BYTES + dims;
}
