/**
 * Where stored documents' bytes live: in the heap while recently written, in a spill file after.
 *
 * Why: the store used to hold every document in its heap, about 3.5 KB of BSON per stored passkey
 * (credential, user, handle, insights, events), so a million passkeys needed gigabytes of heap.
 * Like WiredTiger's cache over its data files, a bounded set of recently written documents stays
 * in memory and the rest are read back from disk on demand; the operating system's page cache
 * keeps the file's busy pages in memory without counting against the process. What stays in the
 * heap per cold document is its id and one number.
 *
 * Spill files are scratch, not storage: durability is the journal's job (journal.ts), and the
 * files are emptied whenever the store starts. Two files take turns: when the one being written
 * is mostly garbage (documents since replaced or removed), writes move to the other and the
 * still-live documents are copied over in small slices between requests, then the first file is
 * truncated. Every read and write here is synchronous: the documents are read while a command
 * runs, and a location never changes between reading it and reading its bytes.
 */
import { closeSync, ftruncateSync, openSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** A stored document: its BSON as a one-byte (latin1) string in memory, or its location in a spill file. */
type Packed = string | number;

// A location is one number: slot * 2^52 + offset * 2^16 + length.
const LENGTH_SPAN = 2 ** 16;
const OFFSET_SPAN = 2 ** 36;
const SLOT_SPAN = 2 ** 52;
/** Larger documents stay in memory (rare; a location holds 16 bits of length). */
const MAX_SPILLED_LENGTH = LENGTH_SPAN - 1;

export interface SpillOptions {
  /** Bytes of recently written documents kept in memory. */
  cacheBytes: number;
  /** Evict once the cache is over by this much, so each eviction is one larger write. Default an eighth of the cache, at most 1 MiB. */
  batchBytes?: number;
  /** A spill file is compacted once it is this large and more than half garbage. Default 64 MiB. */
  compactAfterBytes?: number;
  /** Where a failed spill write or read-back is reported (the documents then stay in memory). */
  onError?: (err: unknown) => void;
}

/** After a failed write (a full disk, say), documents stay in memory this long before spilling is tried again. */
const RETRY_AFTER_FAILURE_MS = 10_000;

/** A compaction in progress: the file being emptied and where the walk over the tables is. */
interface MoveState {
  from: number;
  tables: DocumentTable[];
  iterator: Iterator<[string, Packed]> | null;
  timer: NodeJS.Immediate | null;
}

/** The spill files of one store and the order in which documents were last written. */
export class DocumentSpill {
  private readonly fds: [number, number];
  private readonly paths: [string, string];
  private readonly end = [0, 0];
  private readonly live = [0, 0];
  private current = 0;
  private hotBytes = 0;
  /** Tag + id of every in-memory document, least recently written first (a Map keeps insertion order). */
  private readonly hot = new Map<string, DocumentTable>();
  private readonly tables = new Set<DocumentTable>();
  private nextTag = 0;
  private move: MoveState | null = null;
  private readonly batchBytes: number;
  private readonly compactAfterBytes: number;
  private closed = false;
  private pausedUntil = 0;

  constructor(
    dir: string,
    private readonly opts: SpillOptions,
  ) {
    this.paths = [join(dir, 'spill-0.bin'), join(dir, 'spill-1.bin')];
    // 'w+' truncates: what a previous run spilled is rebuilt from the journal.
    this.fds = [openSync(this.paths[0], 'w+'), openSync(this.paths[1], 'w+')];
    this.batchBytes = opts.batchBytes ?? Math.min(2 ** 20, Math.floor(opts.cacheBytes / 8));
    this.compactAfterBytes = opts.compactAfterBytes ?? 64 * 2 ** 20;
  }

  /** A new collection's documents. */
  table(): DocumentTable {
    const table = new DocumentTable(this, `${(this.nextTag++).toString(36)}:`);
    this.tables.add(table);
    return table;
  }

  /** What the store holds, for tests and diagnostics. */
  stats(): { hotBytes: number; fileBytes: number; liveFileBytes: number; compacting: boolean } {
    return { hotBytes: this.hotBytes, fileBytes: this.end[0] + this.end[1], liveFileBytes: this.live[0] + this.live[1], compacting: this.move !== null };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.move?.timer) clearImmediate(this.move.timer);
    for (let i = 0; i < 2; i++) {
      closeSync(this.fds[i]);
      unlinkSync(this.paths[i]);
    }
  }

  /** @internal A document was written: it is the most recent now. */
  touched(table: DocumentTable, id: string, packed: string): void {
    if (packed.length > MAX_SPILLED_LENGTH || this.closed) return;
    const key = table.tag + id;
    this.hot.delete(key);
    this.hot.set(key, table);
    this.hotBytes += packed.length;
    if (this.hotBytes > this.opts.cacheBytes + this.batchBytes && Date.now() >= this.pausedUntil) this.evict();
  }

  /** @internal A document's previous bytes are no longer needed (replaced, removed). */
  released(table: DocumentTable, id: string, previous: Packed, stillStored: boolean): void {
    if (typeof previous === 'string') {
      if (previous.length > MAX_SPILLED_LENGTH) return;
      this.hotBytes -= previous.length;
      if (!stillStored) this.hot.delete(table.tag + id);
    } else {
      this.live[slotOf(previous)] -= previous % LENGTH_SPAN;
    }
  }

  /** @internal */
  forget(table: DocumentTable): void {
    this.tables.delete(table);
  }

  /** @internal The BSON at a location. */
  read(location: number): Buffer {
    const out = Buffer.allocUnsafe(location % LENGTH_SPAN);
    this.readInto(location, out, 0);
    return out;
  }

  /** @internal The BSON at a location, read into `target` at `at` (its length is location % LENGTH_SPAN). */
  readInto(location: number, target: Buffer, at: number): void {
    const length = location % LENGTH_SPAN;
    const slot = slotOf(location);
    const offset = (location - slot * SLOT_SPAN - length) / LENGTH_SPAN;
    let got = 0;
    while (got < length) {
      const n = readSync(this.fds[slot], target, at + got, length - got, offset + got);
      if (n === 0) throw new Error(`spill file ${slot} ends before offset ${offset + length}`);
      got += n;
    }
  }

  /** Writes the least recently written documents to the spill file until the cache is within its size. */
  private evict(): void {
    const victims: { table: DocumentTable; id: string; packed: string }[] = [];
    let bytes = 0;
    for (const [key, table] of this.hot) {
      if (this.hotBytes - bytes <= this.opts.cacheBytes) break;
      this.hot.delete(key);
      const id = key.slice(table.tag.length);
      const packed = table.docs.get(id);
      if (typeof packed !== 'string' || packed.length > MAX_SPILLED_LENGTH) continue;
      victims.push({ table, id, packed });
      bytes += packed.length;
    }
    let placed: number[] | null;
    try {
      placed = this.append(victims.map((v) => v.packed), bytes);
    } catch (err) {
      // Called in the middle of a write command: the document it stores is already in place, so a
      // failure here must not fail the command (it would leave a change the journal never got).
      this.opts.onError?.(err);
      placed = null;
    }
    if (placed === null) {
      // A failed write, or a full file (64 GiB): they go back into the cache, which is over its
      // size until a retry succeeds (not tried on every write meanwhile).
      for (const v of victims) this.hot.set(v.table.tag + v.id, v.table);
      this.pausedUntil = Date.now() + RETRY_AFTER_FAILURE_MS;
      return;
    }
    victims.forEach((v, i) => v.table.docs.set(v.id, placed[i]));
    this.hotBytes -= bytes;
    this.maybeCompact();
  }

  /** Appends documents' bytes to the current spill file in one write; their locations, or null if the file is full. */
  private append(packed: string[], bytes: number): number[] | null {
    const slot = this.current;
    const start = this.end[slot];
    if (start + bytes >= OFFSET_SPAN) return null;
    const buf = Buffer.allocUnsafe(bytes);
    const locations: number[] = [];
    let off = 0;
    for (const p of packed) {
      buf.write(p, off, 'latin1');
      locations.push(slot * SLOT_SPAN + (start + off) * LENGTH_SPAN + p.length);
      off += p.length;
    }
    let written = 0;
    while (written < bytes) written += writeSync(this.fds[slot], buf, written, bytes - written, start + written);
    this.end[slot] += bytes;
    this.live[slot] += bytes;
    return locations;
  }

  /** Starts moving the live documents out of the current file once it is large and mostly garbage. */
  private maybeCompact(): void {
    const slot = this.current;
    if (this.move || this.end[slot] < this.compactAfterBytes || this.live[slot] * 2 > this.end[slot]) return;
    this.current = 1 - slot;
    this.move = { from: slot, tables: [...this.tables], iterator: null, timer: null };
    this.move.timer = setImmediate(() => this.moveSlice());
  }

  /** Copies a slice of the old file's live documents to the current file; truncates the old one when none are left. */
  private moveSlice(): void {
    const move = this.move;
    if (!move || this.closed) return;
    move.timer = null;
    try {
      this.moveSome(move);
    } catch (err) {
      // Every location still points at whole bytes (one moves only after its copy is written), so
      // giving up leaves documents in both files, all readable; a later compaction tries again.
      this.opts.onError?.(err);
      this.move = null;
    }
  }

  private moveSome(move: MoveState): void {
    const deadline = performance.now() + 4;
    const batch: { table: DocumentTable; id: string; bytes: Buffer }[] = [];
    let batchBytes = 0;
    const flush = (): boolean => {
      if (!batch.length) return true;
      const placed = this.append(batch.map((b) => b.bytes.toString('latin1')), batchBytes);
      if (placed === null) return false;
      for (let i = 0; i < batch.length; i++) {
        const { table, id, bytes } = batch[i];
        table.docs.set(id, placed[i]);
        this.live[move.from] -= bytes.length;
      }
      batch.length = 0;
      batchBytes = 0;
      return true;
    };
    while (move.tables.length) {
      const table = move.tables[0];
      move.iterator ??= table.docs.entries();
      let step = move.iterator.next();
      for (; !step.done; step = move.iterator.next()) {
        const [id, packed] = step.value;
        if (typeof packed !== 'number' || slotOf(packed) !== move.from) continue;
        const bytes = this.read(packed);
        batch.push({ table, id, bytes });
        batchBytes += bytes.length;
        if (batchBytes >= this.batchBytes && !flush()) break;
        if (performance.now() > deadline) break;
      }
      if (!flush()) {
        // The other file is full too: give up this round; the old file stays as it is.
        this.move = null;
        this.current = move.from;
        return;
      }
      if (!step.done) {
        move.timer = setImmediate(() => this.moveSlice());
        return;
      }
      move.tables.shift();
      move.iterator = null;
    }
    ftruncateSync(this.fds[move.from], 0);
    this.end[move.from] = 0;
    this.live[move.from] = 0;
    this.move = null;
  }
}

function slotOf(location: number): number {
  return location >= SLOT_SPAN ? 1 : 0;
}

/**
 * One collection's documents by canonical id, as BSON. Without a spill every document is a
 * one-byte string of its BSON: about a tenth of the memory of the decoded object graph and, unlike
 * a Buffer, no ArrayBuffer of its own (bson's serialize returns slices of Node's shared 8 KiB
 * pool, and one kept slice kept its whole pool chunk alive). Reads always decode a copy, so no
 * reader can change a stored document in place.
 */
export class DocumentTable {
  /** @internal */
  readonly docs = new Map<string, Packed>();

  constructor(
    private readonly spill: DocumentSpill | null,
    /** @internal Prefix of this table's keys in the spill's write order. */
    readonly tag: string,
  ) {}

  get size(): number {
    return this.docs.size;
  }

  has(id: string): boolean {
    return this.docs.has(id);
  }

  /** The document's BSON, or undefined. */
  get(id: string): Buffer | undefined {
    const packed = this.docs.get(id);
    return packed === undefined ? undefined : this.bytes(packed);
  }

  set(id: string, bson: Uint8Array): void {
    const packed = Buffer.from(bson.buffer, bson.byteOffset, bson.byteLength).toString('latin1');
    const previous = this.docs.get(id);
    if (previous !== undefined) this.spill?.released(this, id, previous, true);
    this.docs.set(id, packed);
    this.spill?.touched(this, id, packed);
  }

  delete(id: string): boolean {
    const previous = this.docs.get(id);
    if (previous === undefined) return false;
    this.docs.delete(id);
    this.spill?.released(this, id, previous, false);
    return true;
  }

  /** Every document, in insertion order; changes made while iterating are seen as a Map's iterator sees them. */
  *entries(): Generator<[string, Buffer]> {
    for (const [id, packed] of this.docs) yield [id, this.bytes(packed)];
  }

  /**
   * Every document as its length and a way to copy its BSON into a buffer, in insertion order.
   * A snapshot writes them into one reused buffer: a Buffer per document (tens of megabytes of
   * small allocations in a few hundred milliseconds) left the process's malloc heap that much
   * larger for good. `copyTo` must be called before the iteration goes on or the event loop
   * turns, while the document is still where it was when yielded.
   */
  *storedDocuments(): Generator<StoredDocument> {
    for (const packed of this.docs.values()) {
      if (typeof packed === 'string') {
        yield { length: packed.length, copyTo: (target, at) => void target.write(packed, at, 'latin1') };
      } else {
        const spill = this.spill!;
        yield { length: packed % LENGTH_SPAN, copyTo: (target, at) => spill.readInto(packed, target, at) };
      }
    }
  }

  /** Removes every document and leaves the spill (the collection was dropped). */
  discard(): void {
    for (const id of [...this.docs.keys()]) this.delete(id);
    this.spill?.forget(this);
  }

  private bytes(packed: Packed): Buffer {
    return typeof packed === 'string' ? Buffer.from(packed, 'latin1') : this.spill!.read(packed);
  }
}

/** A stored document's BSON length, and a way to copy it into a buffer at an offset. */
export interface StoredDocument {
  length: number;
  copyTo(target: Buffer, at: number): void;
}

/** A table that keeps every document in memory (a store without a data directory). */
export function memoryTable(): DocumentTable {
  return new DocumentTable(null, '');
}
