/** Documents kept in memory while recently written and in spill files after (spillDocuments.ts). */
import { closeSync, existsSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DocumentSpill, memoryTable } from '../src/spillDocuments.js';
import { makeTempDir } from './cliProcess.js';

const bytesOf = (text: string) => Buffer.from(text, 'latin1');
/** Whether a table holds the document in memory (a string) or in a spill file (a location). */
const where = (docs: Map<string, string | number>, id: string) => (typeof docs.get(id) === 'string' ? 'memory' : 'file');

describe('document spill', () => {
  let dir: string;
  let spill: DocumentSpill | null = null;
  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(() => {
    spill?.close();
    spill = null;
  });

  it('without a cache writes every document to the file and reads the same bytes back', () => {
    spill = new DocumentSpill(dir, { cacheBytes: 0 });
    const table = spill.table();
    for (let i = 0; i < 50; i++) table.set(`d${i}`, bytesOf(`document ${i} `.repeat(i + 1)));
    for (let i = 0; i < 50; i++) {
      expect(where(table.docs, `d${i}`)).toBe('file');
      expect(table.get(`d${i}`)!.toString('latin1')).toBe(`document ${i} `.repeat(i + 1));
    }
    expect(spill.stats().hotBytes).toBe(0);
    expect(spill.stats().liveFileBytes).toBe(spill.stats().fileBytes);
    expect(statSync(join(dir, 'spill-0.bin')).size).toBe(spill.stats().fileBytes);
    expect([...table.entries()].map(([id]) => id)).toEqual(Array.from({ length: 50 }, (_, i) => `d${i}`));
  });

  it('keeps the most recently written documents in memory, across tables, within the cache size', () => {
    spill = new DocumentSpill(dir, { cacheBytes: 250, batchBytes: 0 });
    const a = spill.table();
    const b = spill.table();
    a.set('x', bytesOf('1'.repeat(100)));
    b.set('x', bytesOf('2'.repeat(100)));
    a.set('y', bytesOf('3'.repeat(100)));
    // Three documents of 100 bytes in a 250-byte cache: the least recently written one is spilled.
    expect([where(a.docs, 'x'), where(b.docs, 'x'), where(a.docs, 'y')]).toEqual(['file', 'memory', 'memory']);
    // Rewriting b's x makes it the most recent, so a's y is the next to go.
    b.set('x', bytesOf('4'.repeat(100)));
    a.set('z', bytesOf('5'.repeat(100)));
    expect([where(b.docs, 'x'), where(a.docs, 'y'), where(a.docs, 'z')]).toEqual(['memory', 'file', 'memory']);
    expect(a.get('x')!.toString()).toBe('1'.repeat(100));
    expect(b.get('x')!.toString()).toBe('4'.repeat(100));
    expect(a.get('y')!.toString()).toBe('3'.repeat(100));
    expect(spill.stats().hotBytes).toBe(200);
  });

  it('keeps documents too large for a location in memory', () => {
    spill = new DocumentSpill(dir, { cacheBytes: 0 });
    const table = spill.table();
    const big = 'b'.repeat(70_000);
    table.set('big', bytesOf(big));
    table.set('small', bytesOf('s'));
    expect(where(table.docs, 'big')).toBe('memory');
    expect(where(table.docs, 'small')).toBe('file');
    expect(table.get('big')!.toString('latin1')).toBe(big);
    expect(spill.stats().hotBytes).toBe(0);
  });

  it('compacts a spill file that is mostly garbage: live documents move to the other file, the old one is emptied', async () => {
    spill = new DocumentSpill(dir, { cacheBytes: 0, compactAfterBytes: 8 * 1024, batchBytes: 0 });
    const table = spill.table();
    const other = spill.table();
    const value = (round: number, i: number) => `v${round}-${i}-`.padEnd(100, '.');
    for (let i = 0; i < 100; i++) table.set(`d${i}`, bytesOf(value(0, i)));
    other.set('keep', bytesOf('kept'.padEnd(100, '.')));
    // Rewriting the first 80 three times makes the file mostly garbage; d80..d99 and keep are only in the first file.
    for (let round = 1; round <= 3; round++) for (let i = 0; i < 80; i++) table.set(`d${i}`, bytesOf(value(round, i)));
    table.delete('d0');
    expect(spill.stats().compacting).toBe(true);
    while (spill.stats().compacting) await new Promise((resolve) => setImmediate(resolve));
    const stats = spill.stats();
    expect(stats.liveFileBytes).toBe(100 * 100);
    const sizes = [statSync(join(dir, 'spill-0.bin')).size, statSync(join(dir, 'spill-1.bin')).size];
    // The first file is emptied; the other holds everything that is left.
    expect(sizes[0]).toBe(0);
    expect(sizes[1]).toBe(stats.fileBytes);
    expect(table.get('d0')).toBeUndefined();
    for (let i = 1; i < 100; i++) expect(table.get(`d${i}`)!.toString('latin1')).toBe(value(i < 80 ? 3 : 0, i));
    expect(other.get('keep')!.toString('latin1')).toBe('kept'.padEnd(100, '.'));
  });

  it('keeps documents in memory, reports, and fails no write when the spill file cannot be written', () => {
    const errors: unknown[] = [];
    spill = new DocumentSpill(dir, { cacheBytes: 0, onError: (err) => errors.push(err) });
    const table = spill.table();
    table.set('before', bytesOf('spilled'));
    expect(where(table.docs, 'before')).toBe('file');
    // Swap the file for a read-only handle to it, as a full or failing disk would refuse writes.
    const internals = spill as unknown as { fds: number[] };
    closeSync(internals.fds[0]);
    internals.fds[0] = openSync(join(dir, 'spill-0.bin'), 'r');
    expect(() => table.set('after', bytesOf('kept in memory'))).not.toThrow();
    expect(errors).toHaveLength(1);
    expect(where(table.docs, 'after')).toBe('memory');
    expect(table.get('after')!.toString()).toBe('kept in memory');
    expect(table.get('before')!.toString()).toBe('spilled');
    // Spilling is not retried on every write while it keeps failing.
    table.set('later', bytesOf('also in memory'));
    expect(errors).toHaveLength(1);
    expect(where(table.docs, 'later')).toBe('memory');
  });

  it('lets go of a discarded table, and removes its files when closed', () => {
    spill = new DocumentSpill(dir, { cacheBytes: 0 });
    const table = spill.table();
    for (let i = 0; i < 10; i++) table.set(`d${i}`, bytesOf('x'.repeat(100)));
    expect(spill.stats().liveFileBytes).toBe(1000);
    table.discard();
    expect(table.size).toBe(0);
    expect(spill.stats().liveFileBytes).toBe(0);
    spill.close();
    spill = null;
    expect(existsSync(join(dir, 'spill-0.bin'))).toBe(false);
    expect(existsSync(join(dir, 'spill-1.bin'))).toBe(false);
  });

  it('a memory table holds everything in memory', () => {
    const table = memoryTable();
    table.set('a', bytesOf('alpha'));
    table.set('a', bytesOf('beta'));
    expect(table.get('a')!.toString()).toBe('beta');
    expect(table.delete('a')).toBe(true);
    expect(table.delete('a')).toBe(false);
  });
});
