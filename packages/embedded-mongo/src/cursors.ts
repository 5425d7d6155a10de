/** Server-side cursors: the rest of a result, handed out batch by batch through `getMore`. */
import { calculateObjectSize, Long } from 'bson';
import { randomBytes } from 'node:crypto';
import type { Doc } from './documents.js';
import { MongoCommandError } from './errors.js';
import { MAX_BSON_OBJECT_SIZE } from './wire.js';

/** MongoDB's default first batch; later batches are bounded by size only. */
const DEFAULT_FIRST_BATCH = 101;
/** Leaves room for the reply envelope inside the 16 MiB limit of one BSON document. */
const MAX_BATCH_BYTES = MAX_BSON_OBJECT_SIZE - 64 * 1024;
/** Idle cursors are reaped after ten minutes, like mongod's cursorTimeoutMillis default. */
const IDLE_TIMEOUT_MS = 10 * 60 * 1000;

interface OpenCursor {
  ns: string;
  docs: Doc[];
  pos: number;
  touched: number;
}

export interface CursorReply {
  cursor: { id: Long; ns: string; firstBatch?: Doc[]; nextBatch?: Doc[] };
  ok: 1;
}

export class CursorRegistry {
  private readonly open = new Map<string, OpenCursor>();

  /** Replies with the first batch and keeps the rest (unless `singleBatch`). */
  first(ns: string, docs: Doc[], batchSize: number | undefined, singleBatch = false): CursorReply {
    const batch = takeBatch(docs, 0, batchSize ?? DEFAULT_FIRST_BATCH);
    let id = Long.ZERO;
    if (!singleBatch && batch.length < docs.length) {
      id = newCursorId();
      this.open.set(id.toString(), { ns, docs, pos: batch.length, touched: Date.now() });
    }
    return { cursor: { id, ns, firstBatch: batch }, ok: 1 };
  }

  next(id: Long, ns: string, batchSize: number | undefined): CursorReply {
    const c = this.open.get(id.toString());
    if (!c || c.ns !== ns) throw new MongoCommandError('CursorNotFound', `cursor id ${id.toString()} not found`);
    const batch = takeBatch(c.docs, c.pos, batchSize ?? Number.POSITIVE_INFINITY);
    c.pos += batch.length;
    c.touched = Date.now();
    let replyId = id;
    if (c.pos >= c.docs.length) {
      this.open.delete(id.toString());
      replyId = Long.ZERO;
    }
    return { cursor: { id: replyId, ns, nextBatch: batch }, ok: 1 };
  }

  kill(id: Long): boolean {
    return this.open.delete(id.toString());
  }

  reapIdle(now = Date.now()): void {
    for (const [id, c] of this.open) if (now - c.touched > IDLE_TIMEOUT_MS) this.open.delete(id);
  }

  get size(): number {
    return this.open.size;
  }
}

function takeBatch(docs: Doc[], from: number, max: number): Doc[] {
  const out: Doc[] = [];
  let bytes = 0;
  for (let i = from; i < docs.length && out.length < max; i++) {
    const size = calculateObjectSize(docs[i]);
    if (out.length > 0 && bytes + size > MAX_BATCH_BYTES) break;
    bytes += size;
    out.push(docs[i]);
  }
  return out;
}

/** A random positive int64, as mongod's cursor ids are. */
function newCursorId(): Long {
  const b = randomBytes(8);
  b[7] &= 0x7f;
  const id = Long.fromBytesLE([...b]);
  return id.isZero() ? Long.ONE : id;
}
