/**
 * Typed arrays made without zeroing their memory, for arrays whose every element is written before
 * anything reads it. A zeroed array's pages are all written when it is made; an unfilled one's only
 * as they are used. On a fresh instance a page written for the first time costs a fault (~10 µs
 * each, measured on this project's 2-core VM), and zeroing a restored LongMemEval user's pool,
 * posting runs and per-term arrays came to about 100 pages of a first recall that reads a few.
 */
export function unfilledInt32(length: number): Int32Array<ArrayBuffer> {
  return new Int32Array(bytes(length * 4), 0, length);
}

/** As `unfilledInt32`. */
export function unfilledUint16(length: number): Uint16Array<ArrayBuffer> {
  return new Uint16Array(bytes(length * 2), 0, length);
}

function bytes(n: number): ArrayBuffer {
  // A buffer of its own (not a slice of Node's pool), `n` bytes long.
  return Buffer.allocUnsafeSlow(n).buffer;
}
