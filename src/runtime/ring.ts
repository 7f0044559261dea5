/**
 * A fixed-size ring of the most recent raw bytes of a stream (64 KB by default): the
 * stripped-tail baseline's tail (src/eval/detectors.ts). Writing never allocates.
 */
export class ByteRing {
  readonly #buf: Uint8Array;
  #end = 0; // next write position
  #len = 0; // bytes held, <= capacity

  /** @param capacity size in bytes (default 64 KB). */
  constructor(readonly capacity = 64 * 1024) {
    this.#buf = new Uint8Array(capacity);
  }

  /** Appends `data`, dropping the oldest bytes when full. */
  push(data: Uint8Array): void {
    const cap = this.capacity;
    if (data.length >= cap) {
      this.#buf.set(data.subarray(data.length - cap));
      this.#end = 0;
      this.#len = cap;
      return;
    }
    const first = Math.min(data.length, cap - this.#end);
    this.#buf.set(data.subarray(0, first), this.#end);
    if (first < data.length) this.#buf.set(data.subarray(first), 0);
    this.#end = (this.#end + data.length) % cap;
    this.#len = Math.min(cap, this.#len + data.length);
  }

  /** The bytes held, oldest first (a copy), optionally only the last `max` bytes. */
  bytes(max = this.capacity): Uint8Array {
    const n = Math.min(max, this.#len);
    const out = new Uint8Array(n);
    const start = (this.#end - n + this.capacity) % this.capacity;
    const first = Math.min(n, this.capacity - start);
    out.set(this.#buf.subarray(start, start + first));
    if (first < n) out.set(this.#buf.subarray(0, n - first), first);
    return out;
  }

  /** Number of bytes held. */
  get length(): number {
    return this.#len;
  }
}
