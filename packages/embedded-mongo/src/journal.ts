/**
 * Durability: an append-only journal of physical changes plus periodic snapshots.
 *
 * Files in the data directory, for generation G:
 *   snapshot-G.bson  the whole state at the moment journal-G was started (absent for G = 0)
 *   journal-G.log    every change since then
 * A frame is `[u32 length][u32 crc32c][BSON record]`. Records are physical ("this document now
 * looks like this", "this id is gone"), so replaying one twice is harmless; that is what lets a
 * snapshot be taken while writes continue into the next journal.
 *
 * A write is acknowledged only after its frame is on disk: written with O_DSYNC, or written and
 * `fdatasync`ed where O_DSYNC is missing (group commit: one write covers every record that arrived
 * meanwhile). A crash can only tear the last frame, which was
 * never acknowledged; recovery cuts the file back to the last whole frame instead of refusing to
 * start. Snapshots are written to a `.tmp` file, synced and renamed, so a snapshot on disk is whole.
 */
import { crc32c } from '@node-rs/crc32';
import { deserialize, serialize } from 'bson';
import { closeSync, constants, fsyncSync, openSync, readdirSync, renameSync, unlinkSync, existsSync, mkdirSync, readFileSync, writeFileSync, ftruncateSync, statSync, write, fdatasync, close } from 'node:fs';
import { open } from 'node:fs/promises';
import { promisify } from 'node:util';
import { join, resolve } from 'node:path';
import type { Doc } from './documents.js';

const writeAsync = promisify(write);

/**
 * Journals are opened for synchronized data writes (O_DSYNC) where the platform has them: a write
 * then returns only once its data is on disk, as write + fdatasync did, in one trip to libuv's
 * thread pool instead of two (each trip wakes a worker thread and then the event loop). Elsewhere
 * the flush loop calls fdatasync after writing.
 */
const SYNCHRONIZED_WRITES = typeof constants.O_DSYNC === 'number' && constants.O_DSYNC !== 0;

function openJournal(path: string): number {
  return SYNCHRONIZED_WRITES ? openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_DSYNC, 0o666) : openSync(path, 'a');
}
const datasyncAsync = promisify(fdatasync);
const closeAsync = promisify(close);
const HEADER = 8;
/** How much of a snapshot may be written before it is synced. */
const SNAPSHOT_SYNC_BYTES = 32 * 1024 * 1024;
/** A snapshot is written in pieces of this size, through one buffer reused for each. */
const SNAPSHOT_CHUNK_BYTES = 4 * 1024 * 1024;
const MAX_FRAME = 64 * 1024 * 1024;
/** Matches how the server reads BSON off the wire, so int64 stays int64 after a restart. */
export const BSON_READ_OPTIONS = { promoteLongs: false } as const;

/**
 * A record that writes its own BSON (`length` bytes) into a buffer: a snapshot takes the stored
 * documents this way, so it needs no Buffer per document.
 */
export interface RecordWriter {
  length: number;
  writeTo(target: Buffer, at: number): void;
}

/** What a snapshot is made of: records as documents, as BSON, or as writers of their BSON. */
export type SnapshotRecord = Doc | Uint8Array | RecordWriter;

function isRecordWriter(r: SnapshotRecord): r is RecordWriter {
  return typeof (r as RecordWriter).writeTo === 'function';
}

/** Writes a writer's record framed (see frame) at `at` in `target`; returns the frame's length. */
function writeFrame(target: Buffer, at: number, record: RecordWriter): number {
  record.writeTo(target, at + HEADER);
  target.writeUInt32LE(record.length, at);
  target.writeUInt32LE(crc32c(target.subarray(at + HEADER, at + HEADER + record.length)), at + 4);
  return HEADER + record.length;
}

export interface JournalOptions {
  /** Start a snapshot when the journal grows past this many bytes (and past the last snapshot's size). */
  compactAfterBytes?: number;
  onError?: (err: unknown) => void;
}

/** A frame around a record, given as a document, as its BSON already, or as a writer of its BSON. */
export function frame(record: SnapshotRecord): Buffer {
  if (isRecordWriter(record)) {
    const out = Buffer.allocUnsafe(HEADER + record.length);
    writeFrame(out, 0, record);
    return out;
  }
  const body = record instanceof Uint8Array ? record : serialize(record);
  const out = Buffer.allocUnsafe(HEADER + body.length);
  out.writeUInt32LE(body.length, 0);
  out.writeUInt32LE(crc32c(body), 4);
  out.set(body, HEADER);
  return out;
}

/** Reads whole frames; returns the records and the byte offset just past the last good one. */
export function readFrames(buf: Buffer): { records: Doc[]; goodBytes: number } {
  const records: Doc[] = [];
  let off = 0;
  while (off + HEADER <= buf.length) {
    const len = buf.readUInt32LE(off);
    const crc = buf.readUInt32LE(off + 4);
    if (len < 5 || len > MAX_FRAME || off + HEADER + len > buf.length) break;
    const body = buf.subarray(off + HEADER, off + HEADER + len);
    if (crc32c(body) !== crc) break;
    try {
      records.push(deserialize(body, BSON_READ_OPTIONS));
    } catch {
      break;
    }
    off += HEADER + len;
  }
  return { records, goodBytes: off };
}

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class Journal {
  private pending: Buffer[] = [];
  private appendedSeq = 0;
  private durableSeq = 0;
  private waiters: Waiter[] = [];
  private flushing: Promise<void> | null = null;
  private compacting: Promise<void> | null = null;
  private failed: unknown = null;
  private bytes: number;
  private snapshotBytes: number;
  private closed = false;

  private constructor(
    private readonly dir: string,
    private gen: number,
    private fd: number,
    bytes: number,
    snapshotBytes: number,
    private readonly capture: () => Iterable<SnapshotRecord>,
    private readonly opts: JournalOptions,
  ) {
    this.bytes = bytes;
    this.snapshotBytes = snapshotBytes;
  }

  /**
   * Opens the data directory: replays the newest snapshot and the journals after it through
   * `apply`, repairs a torn tail, and returns a journal ready for appends. `capture` must return
   * the records that rebuild the current state (used for snapshots).
   */
  static async open(dir: string, apply: (record: Doc) => void, capture: () => Iterable<SnapshotRecord>, opts: JournalOptions = {}): Promise<Journal> {
    mkdirSync(dir, { recursive: true });
    const files = readdirSync(dir);
    for (const f of files) if (f.endsWith('.tmp')) unlinkSync(join(dir, f));
    const gens = (prefix: string, ext: string) =>
      files
        .map((f) => new RegExp(`^${prefix}-(\\d+)\\.${ext}$`).exec(f))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => Number(m[1]))
        .sort((a, b) => a - b);
    const snapshots = gens('snapshot', 'bson');
    const base = snapshots.length ? snapshots[snapshots.length - 1] : 0;
    let snapshotBytes = 0;
    if (snapshots.length) {
      const buf = readFileSync(join(dir, `snapshot-${base}.bson`));
      const { records, goodBytes } = readFrames(buf);
      if (goodBytes !== buf.length) throw new Error(`snapshot-${base}.bson is damaged at byte ${goodBytes}; restore the data directory from a backup`);
      records.forEach(apply);
      snapshotBytes = buf.length;
    }
    const journals = gens('journal', 'log').filter((g) => g >= base);
    let current = journals.length ? journals[journals.length - 1] : base;
    let bytes = 0;
    for (const g of journals) {
      const path = join(dir, `journal-${g}.log`);
      const buf = readFileSync(path);
      const { records, goodBytes } = readFrames(buf);
      records.forEach(apply);
      if (goodBytes !== buf.length) {
        // A torn final frame from a crash: it was never acknowledged, so cut it off.
        const fd = openSync(path, 'r+');
        ftruncateSync(fd, goodBytes);
        fsyncSync(fd);
        closeSync(fd);
      }
      if (g === current) bytes = goodBytes;
    }
    // Leftovers of a compaction that finished its rename but not its clean-up.
    for (const g of snapshots.filter((s) => s < base)) unlinkSync(join(dir, `snapshot-${g}.bson`));
    for (const g of gens('journal', 'log').filter((j) => j < base)) unlinkSync(join(dir, `journal-${g}.log`));
    if (!journals.length) current = base;
    const fd = openJournal(join(dir, `journal-${current}.log`));
    syncDir(dir);
    return new Journal(dir, current, fd, bytes, snapshotBytes, capture, opts);
  }

  /** Queues a record; it becomes durable with the next `commit()`. */
  append(record: Doc | Uint8Array): void {
    if (this.closed) throw new Error('journal is closed');
    const f = frame(record);
    this.pending.push(f);
    this.appendedSeq++;
    this.bytes += f.length;
  }

  /** Resolves once every record appended so far is on disk. */
  commit(): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    const seq = this.appendedSeq;
    if (this.durableSeq >= seq) return Promise.resolve();
    const p = new Promise<void>((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
    this.flushing ??= this.flushLoop();
    return p;
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.pending.length) {
        const batch = Buffer.concat(this.pending);
        const seq = this.appendedSeq;
        this.pending = [];
        let written = 0;
        while (written < batch.length) written += (await writeAsync(this.fd, batch, written, batch.length - written, null)).bytesWritten;
        if (!SYNCHRONIZED_WRITES) await datasyncAsync(this.fd);
        this.durableSeq = seq;
        this.waiters = this.waiters.filter((w) => (w.seq <= seq ? (w.resolve(), false) : true));
        this.maybeCompact();
      }
    } catch (err) {
      // The disk refused a write: nothing after this point can be acknowledged truthfully.
      this.failed = err;
      for (const w of this.waiters) w.reject(err);
      this.waiters = [];
      this.opts.onError?.(err);
    } finally {
      this.flushing = null;
    }
  }

  /**
   * Called by the flush loop between batches, when no write is in flight: switches to journal
   * G+1 and captures the state in the same synchronous step (so no record can fall between the
   * snapshot and the new journal), then writes snapshot G+1 in the background.
   */
  private maybeCompact(): void {
    const threshold = Math.max(this.opts.compactAfterBytes ?? 64 * 1024 * 1024, this.snapshotBytes);
    if (this.compacting || this.closed || this.bytes < threshold) return;
    const records = this.capture();
    const oldFd = this.fd;
    const oldGen = this.gen;
    this.gen += 1;
    this.fd = openJournal(join(this.dir, `journal-${this.gen}.log`));
    // Pending records (already part of `records`) go to the new journal too: replaying a physical record twice is harmless.
    this.bytes = this.pending.reduce((n, b) => n + b.length, 0);
    this.compacting = this.writeSnapshot(this.gen, records, oldGen, oldFd).finally(() => {
      this.compacting = null;
    });
  }

  private async writeSnapshot(gen: number, records: Iterable<SnapshotRecord>, oldGen: number, oldFd: number): Promise<void> {
    try {
      syncDir(this.dir);
      const tmp = join(this.dir, `snapshot-${gen}.bson.tmp`);
      const out = await open(tmp, 'w');
      let size = 0;
      let syncedSize = 0;
      try {
        const chunk = Buffer.allocUnsafe(SNAPSHOT_CHUNK_BYTES);
        let used = 0;
        const write = async (bytes: Buffer) => {
          await out.write(bytes);
          size += bytes.length;
          // Synced as it goes: one sync of gigabytes at the end would hold the journal's
          // synchronized writes (and so every acknowledgement) behind it on the same disk.
          if (size - syncedSize >= SNAPSHOT_SYNC_BYTES) {
            await out.datasync();
            syncedSize = size;
          }
        };
        for (const r of records) {
          if (isRecordWriter(r) && used + HEADER + r.length <= chunk.length) {
            used += writeFrame(chunk, used, r);
            continue;
          }
          // A record that does not fit is taken now, into a buffer of its own: a stored document
          // may change or move while the chunk is being written out.
          const f = frame(r);
          if (used + f.length > chunk.length) {
            await write(chunk.subarray(0, used));
            used = 0;
          }
          if (f.length > chunk.length) await write(f);
          else used += f.copy(chunk, used);
        }
        if (used) await write(chunk.subarray(0, used));
        await out.sync();
      } finally {
        await out.close();
      }
      renameSync(tmp, join(this.dir, `snapshot-${gen}.bson`));
      syncDir(this.dir);
      this.snapshotBytes = size;
      await closeAsync(oldFd);
      for (const f of [`snapshot-${oldGen}.bson`, `journal-${oldGen}.log`]) {
        if (existsSync(join(this.dir, f))) unlinkSync(join(this.dir, f));
      }
      syncDir(this.dir);
    } catch (err) {
      this.opts.onError?.(err);
    }
  }

  /** Flushes, waits for a running snapshot, and closes the file. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.pending.length) await this.commit().catch(() => undefined);
    await this.flushing;
    await this.compacting;
    this.closed = true;
    await closeAsync(this.fd);
  }
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * One server per data directory. The lock holds the owner's pid; a lock left by a process that
 * no longer runs (after `kill -9`) is taken over instead of blocking the start.
 */
export function lockDataDir(dir: string): () => void {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'mongod.lock');
  // The pid check cannot see a second server in this same process; this set does.
  const key = resolve(dir);
  if (locallyHeld.has(key)) throw new Error(`data directory ${dir} is in use by process ${process.pid}`);
  // Exclusive create, so two servers starting at the same moment cannot both take the lock.
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) {
        throw new Error(`data directory ${dir} is locked (${path})`, { cause: err });
      }
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (pid && pid !== process.pid && isAlive(pid)) throw new Error(`data directory ${dir} is in use by process ${pid}`, { cause: err });
      // A lock left behind by a process that is gone (kill -9): take it over.
      unlinkSync(path);
    }
  }
  locallyHeld.add(key);
  return () => {
    locallyHeld.delete(key);
    try {
      if (statSync(path).isFile() && readFileSync(path, 'utf8').trim() === String(process.pid)) unlinkSync(path);
    } catch {
      /* already gone */
    }
  };
}

/** Data directories locked by servers of this process. */
const locallyHeld = new Set<string>();

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
