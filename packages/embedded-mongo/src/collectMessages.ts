/**
 * Cuts a socket's byte stream into whole wire-protocol messages. Chunks are kept as they arrive
 * and copied once, when a message is complete: concatenating on every chunk would copy a large
 * message over and over (quadratic in its size).
 */
import { MAX_MESSAGE_SIZE } from './wire.js';

export class MessageCollector {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /**
   * Adds a chunk and returns the messages it completes. Throws on a length prefix out of range,
   * checked before the body is buffered so a bogus length cannot make us hold 2 GiB.
   */
  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const out: Buffer[] = [];
    while (this.buffered >= 4) {
      const length = this.peekLength();
      if (length < 21 || length > MAX_MESSAGE_SIZE) throw new RangeError(`message length ${length} out of range`);
      if (this.buffered < length) break;
      out.push(this.take(length));
    }
    return out;
  }

  /** The int32 length prefix, which may straddle chunks. */
  private peekLength(): number {
    const first = this.chunks[0];
    if (first.length >= 4) return first.readInt32LE(0);
    return this.take(4, false).readInt32LE(0);
  }

  /** The next `n` bytes: a view when one chunk holds them, else one copy; consumed unless `consume` is false. */
  private take(n: number, consume = true): Buffer {
    const first = this.chunks[0];
    if (first.length >= n) {
      if (consume) {
        if (first.length === n) this.chunks.shift();
        else this.chunks[0] = first.subarray(n);
        this.buffered -= n;
      }
      return first.subarray(0, n);
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    let i = 0;
    let lastPart = 0;
    while (filled < n) {
      const c = this.chunks[i++];
      lastPart = Math.min(c.length, n - filled);
      c.copy(out, filled, 0, lastPart);
      filled += lastPart;
    }
    if (consume) {
      // Every chunk read is used up except perhaps the last, which keeps its unread tail.
      const last = this.chunks[i - 1];
      if (lastPart === last.length) this.chunks.splice(0, i);
      else this.chunks.splice(0, i, last.subarray(lastPart));
      this.buffered -= n;
    }
    return out;
  }
}
