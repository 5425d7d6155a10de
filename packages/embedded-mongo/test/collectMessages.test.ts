/**
 * The socket reader's framing: messages come out whole and byte-exact however the stream is cut
 * (length prefixes split across chunks, many messages per chunk, one message over many chunks).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MessageCollector } from '../src/collectMessages.js';

function message(bodyBytes: number): Buffer {
  const m = Buffer.concat([Buffer.alloc(4), randomBytes(Math.max(17, bodyBytes))]);
  m.writeInt32LE(m.length, 0);
  return m;
}

/** Feeds `stream` in pieces of the given sizes (cycled) and returns every message that comes out. */
function feed(stream: Buffer, sizes: number[]): Buffer[] {
  const collector = new MessageCollector();
  const out: Buffer[] = [];
  for (let off = 0, i = 0; off < stream.length; i++) {
    const n = sizes[i % sizes.length];
    out.push(...collector.push(stream.subarray(off, off + n)));
    off += n;
  }
  return out;
}

describe('MessageCollector', () => {
  const messages = [message(17), message(300), message(5000), message(21), message(70_000)];
  const stream = Buffer.concat(messages);

  it.each([[[1]], [[2, 3]], [[3, 1, 7]], [[4096]], [[65_536]], [[stream.length]], [[5, 100_000]]])('reassembles every message when the stream comes in pieces of %j bytes', (sizes) => {
    const out = feed(stream, sizes);
    expect(out.length).toBe(messages.length);
    out.forEach((m, i) => expect(m.equals(messages[i])).toBe(true));
  });

  it('holds a partial message until its last byte arrives', () => {
    const collector = new MessageCollector();
    const m = message(1000);
    expect(collector.push(m.subarray(0, 2))).toEqual([]);
    expect(collector.push(m.subarray(2, 999))).toEqual([]);
    const out = collector.push(m.subarray(999));
    expect(out.length).toBe(1);
    expect(out[0].equals(m)).toBe(true);
  });

  it.each([[0], [20], [-1], [48_000_001]])('refuses a length prefix of %d before buffering the body', (length) => {
    const head = Buffer.alloc(4);
    head.writeInt32LE(length, 0);
    // Split inside the prefix too, so the check also covers a prefix assembled from two chunks.
    const collector = new MessageCollector();
    expect(collector.push(head.subarray(0, 1))).toEqual([]);
    expect(() => collector.push(head.subarray(1))).toThrow(/out of range/);
  });
});
