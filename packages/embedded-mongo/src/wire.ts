/**
 * MongoDB wire protocol framing: the message header, OP_QUERY (legacy handshake), OP_MSG, and
 * the replies OP_REPLY and OP_MSG. https://www.mongodb.com/docs/manual/reference/mongodb-wire-protocol/
 */
import { crc32c } from '@node-rs/crc32';
import { deserialize, serialize, Long } from 'bson';
import type { Doc } from './documents.js';
import { BSON_READ_OPTIONS } from './journal.js';

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_MSG = 2013;
export const MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024;
export const MAX_MESSAGE_SIZE = 48_000_000;
export const HEADER_SIZE = 16;

const CHECKSUM_PRESENT = 1 << 0;
export const MORE_TO_COME = 1 << 1;
const EXHAUST_ALLOWED = 1 << 16;
/** OP_MSG flag bits 0–15 are "must understand": any we do not know makes the message invalid. */
const KNOWN_REQUIRED_BITS = CHECKSUM_PRESENT | MORE_TO_COME;

/** A protocol violation: the connection is closed, as mongod does. */
export class ProtocolError extends Error {}

export interface Header {
  length: number;
  requestId: number;
  responseTo: number;
  opCode: number;
}

export type Request =
  | { kind: 'msg'; header: Header; flags: number; command: Doc }
  | { kind: 'query'; header: Header; collection: string; query: Doc };

export function readHeader(buf: Buffer): Header {
  const length = buf.readInt32LE(0);
  if (length < HEADER_SIZE + 5 || length > MAX_MESSAGE_SIZE) {
    throw new ProtocolError(`message length ${length} is outside ${HEADER_SIZE + 5}..${MAX_MESSAGE_SIZE}`);
  }
  return { length, requestId: buf.readInt32LE(4), responseTo: buf.readInt32LE(8), opCode: buf.readInt32LE(12) };
}

/** Parses one whole message (header included). */
export function parseMessage(msg: Buffer): Request {
  const header = readHeader(msg);
  if (header.opCode === OP_MSG) return parseOpMsg(header, msg);
  if (header.opCode === OP_QUERY) return parseOpQuery(header, msg);
  // OP_COMPRESSED is never negotiated (we advertise no compression); legacy CRUD opcodes were removed in MongoDB 6.
  throw new ProtocolError(`unsupported opCode ${header.opCode}`);
}

function readDoc(msg: Buffer, off: number, end: number): { doc: Doc; next: number } {
  if (off + 4 > end) throw new ProtocolError('truncated BSON document');
  const size = msg.readInt32LE(off);
  if (size < 5 || off + size > end) throw new ProtocolError(`BSON document size ${size} does not fit the message`);
  try {
    return { doc: deserialize(msg.subarray(off, off + size), BSON_READ_OPTIONS), next: off + size };
  } catch (err) {
    throw new ProtocolError(`invalid BSON: ${(err as Error).message}`);
  }
}

function readCString(msg: Buffer, off: number, end: number): { value: string; next: number } {
  const zero = msg.indexOf(0, off);
  if (zero < 0 || zero >= end) throw new ProtocolError('unterminated cstring');
  return { value: msg.toString('utf8', off, zero), next: zero + 1 };
}

function parseOpMsg(header: Header, msg: Buffer): Request {
  const flags = msg.readUInt32LE(HEADER_SIZE);
  if (flags & 0xffff & ~KNOWN_REQUIRED_BITS) throw new ProtocolError(`unknown required OP_MSG flag bits ${flags}`);
  let end = msg.length;
  if (flags & CHECKSUM_PRESENT) {
    end -= 4;
    if (end < HEADER_SIZE + 4) throw new ProtocolError('message too short for its checksum');
    if (crc32c(msg.subarray(0, end)) !== msg.readUInt32LE(end)) throw new ProtocolError('OP_MSG checksum mismatch');
  }
  let off = HEADER_SIZE + 4;
  let body: Doc | null = null;
  const sequences: [string, Doc[]][] = [];
  while (off < end) {
    const kind = msg[off++];
    if (kind === 0) {
      if (body) throw new ProtocolError('OP_MSG has more than one body section');
      const r = readDoc(msg, off, end);
      body = r.doc;
      off = r.next;
    } else if (kind === 1) {
      if (off + 4 > end) throw new ProtocolError('truncated document sequence');
      const size = msg.readInt32LE(off);
      const seqEnd = off + size;
      if (size < 5 || seqEnd > end) throw new ProtocolError('document sequence does not fit the message');
      const id = readCString(msg, off + 4, seqEnd);
      const docs: Doc[] = [];
      let p = id.next;
      while (p < seqEnd) {
        const r = readDoc(msg, p, seqEnd);
        docs.push(r.doc);
        p = r.next;
      }
      sequences.push([id.value, docs]);
      off = seqEnd;
    } else {
      throw new ProtocolError(`unknown OP_MSG section kind ${kind}`);
    }
  }
  if (!body) throw new ProtocolError('OP_MSG without a body section');
  // Kind-1 sections are the command's array fields (`documents`, `updates`, `deletes`).
  for (const [id, docs] of sequences) body[id] = docs;
  return { kind: 'msg', header, flags, command: body };
}

function parseOpQuery(header: Header, msg: Buffer): Request {
  let off = HEADER_SIZE + 4; // flags
  const coll = readCString(msg, off, msg.length);
  off = coll.next + 8; // numberToSkip, numberToReturn
  const { doc } = readDoc(msg, off, msg.length);
  return { kind: 'query', header, collection: coll.value, query: doc };
}

let nextRequestId = 1;

function header(length: number, responseTo: number, opCode: number): Buffer {
  const h = Buffer.allocUnsafe(HEADER_SIZE);
  h.writeInt32LE(length, 0);
  h.writeInt32LE(nextRequestId++ & 0x7fffffff, 4);
  h.writeInt32LE(responseTo, 8);
  h.writeInt32LE(opCode, 12);
  return h;
}

/** An OP_MSG reply with one body section. */
export function encodeMsgReply(responseTo: number, reply: Doc): Buffer {
  const body = serialize(reply);
  const flags = Buffer.alloc(4);
  return Buffer.concat([header(HEADER_SIZE + 4 + 1 + body.length, responseTo, OP_MSG), flags, Buffer.from([0]), body]);
}

/** An OP_REPLY carrying one document (the answer to a legacy OP_QUERY command). */
export function encodeOpReply(responseTo: number, reply: Doc): Buffer {
  const body = serialize(reply);
  const fixed = Buffer.alloc(20);
  fixed.writeInt32LE(0, 0); // responseFlags
  fixed.writeBigInt64LE(0n, 4); // cursorID
  fixed.writeInt32LE(0, 12); // startingFrom
  fixed.writeInt32LE(1, 16); // numberReturned
  return Buffer.concat([header(HEADER_SIZE + 20 + body.length, responseTo, OP_REPLY), fixed, body]);
}

export function isExhaustAllowed(flags: number): boolean {
  return (flags & EXHAUST_ALLOWED) !== 0;
}

export const ZERO_CURSOR = Long.ZERO;
