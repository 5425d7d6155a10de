/**
 * The journal record `{op: 'put', db, coll, doc}` around a document that is already BSON: the
 * stored bytes are spliced in rather than decoded and encoded again. The record's head (everything
 * before the document) is the same for every document of a collection, so it is serialized once.
 */
import { serialize } from 'bson';
import type { RecordWriter } from './journal.js';
import type { StoredDocument } from './spillDocuments.js';

/** `\x03doc\0`: the embedded-document element the document goes into. */
const DOC_ELEMENT = Buffer.from([0x03, 0x64, 0x6f, 0x63, 0x00]);
/** Heads kept; tests create many short-lived databases, so the cache is emptied when it is full. */
const MAX_HEADS = 256;
const heads = new Map<string, Buffer>();

/** serialize({op: 'put', db, coll}) without its closing 0, followed by the "doc" element's type and name. */
function headOf(db: string, coll: string): Buffer {
  const key = `${db}\0${coll}`;
  let head = heads.get(key);
  if (!head) {
    const fields = serialize({ op: 'put', db, coll });
    head = Buffer.concat([fields.subarray(0, fields.length - 1), DOC_ELEMENT]);
    if (heads.size >= MAX_HEADS) heads.clear();
    heads.set(key, head);
  }
  return head;
}

/** Writes the record at `at` in `target`, taking the document's bytes from `doc`; returns its length. */
function writeRecord(target: Buffer, at: number, head: Buffer, doc: StoredDocument): number {
  const total = head.length + doc.length + 1;
  head.copy(target, at);
  doc.copyTo(target, at + head.length);
  target[at + total - 1] = 0;
  target.writeInt32LE(total, at);
  return total;
}

export function encodePutRecord(db: string, coll: string, raw: Uint8Array): Buffer {
  const head = headOf(db, coll);
  const out = Buffer.allocUnsafe(head.length + raw.length + 1);
  writeRecord(out, 0, head, { length: raw.length, copyTo: (target, at) => target.set(raw, at) });
  return out;
}

/** The record of a stored document for a snapshot, written straight into the snapshot's buffer. */
export function putRecordWriter(db: string, coll: string, doc: StoredDocument): RecordWriter {
  const head = headOf(db, coll);
  return { length: head.length + doc.length + 1, writeTo: (target, at) => void writeRecord(target, at, head, doc) };
}
