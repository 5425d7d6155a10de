/**
 * A minimal raw MongoDB wire-protocol client for tests that need exact control over the bytes
 * (checksums, moreToCome, pipelining, malformed messages). BSON comes from the `bson` package.
 */
import { crc32c } from '@node-rs/crc32';
import { deserialize, serialize, type Document } from 'bson';
import { connect, type Socket } from 'node:net';

export const OP_REPLY = 1;
export const OP_QUERY = 2004;
export const OP_MSG = 2013;
export const CHECKSUM_PRESENT = 1 << 0;
export const MORE_TO_COME = 1 << 1;

export function header(length: number, requestId: number, opCode: number, responseTo = 0): Buffer {
  const h = Buffer.alloc(16);
  h.writeInt32LE(length, 0);
  h.writeInt32LE(requestId, 4);
  h.writeInt32LE(responseTo, 8);
  h.writeInt32LE(opCode, 12);
  return h;
}

export interface OpMsgOptions {
  flags?: number;
  /** Kind-1 sections: identifier and documents. */
  sequences?: [string, Document[]][];
  /** Appends a CRC-32C and sets the checksumPresent flag; `'wrong'` appends a bad one. */
  checksum?: boolean | 'wrong';
}

/** An OP_MSG with one body section (kind 0), optional document sequences and checksum. */
export function opMsg(requestId: number, body: Document, opts: OpMsgOptions = {}): Buffer {
  let flags = opts.flags ?? 0;
  if (opts.checksum) flags |= CHECKSUM_PRESENT;
  const parts: Uint8Array[] = [Buffer.from([0]), serialize(body)];
  for (const [id, docs] of opts.sequences ?? []) {
    const payload = Buffer.concat([Buffer.from(`${id}\0`, 'utf8'), ...docs.map((d) => serialize(d))]);
    const size = Buffer.alloc(4);
    size.writeInt32LE(4 + payload.length, 0);
    parts.push(Buffer.from([1]), size, payload);
  }
  const flagBuf = Buffer.alloc(4);
  flagBuf.writeUInt32LE(flags >>> 0, 0);
  const sections = Buffer.concat(parts);
  const checksumBytes = opts.checksum ? 4 : 0;
  const length = 16 + 4 + sections.length + checksumBytes;
  const msg = Buffer.concat([header(length, requestId, OP_MSG), flagBuf, sections]);
  if (!opts.checksum) return msg;
  const crc = Buffer.alloc(4);
  const value = crc32c(msg);
  crc.writeUInt32LE((opts.checksum === 'wrong' ? value ^ 0x5a5a5a5a : value) >>> 0, 0);
  return Buffer.concat([msg, crc]);
}

/** A legacy OP_QUERY (what drivers send for the first handshake). */
export function opQuery(requestId: number, ns: string, query: Document, numberToReturn = -1): Buffer {
  const flags = Buffer.alloc(4);
  const nsBuf = Buffer.from(`${ns}\0`, 'utf8');
  const skipReturn = Buffer.alloc(8);
  skipReturn.writeInt32LE(0, 0);
  skipReturn.writeInt32LE(numberToReturn, 4);
  const q = serialize(query);
  const length = 16 + 4 + nsBuf.length + 8 + q.length;
  return Buffer.concat([header(length, requestId, OP_QUERY), flags, nsBuf, skipReturn, q]);
}

export interface Reply {
  length: number;
  requestId: number;
  responseTo: number;
  opCode: number;
  /** OP_MSG flag bits, or OP_REPLY responseFlags. */
  flags: number;
  /** OP_REPLY only. */
  numberReturned?: number;
  cursorId?: bigint;
  doc: Document;
}

export function parseReply(msg: Buffer): Reply {
  const length = msg.readInt32LE(0);
  const requestId = msg.readInt32LE(4);
  const responseTo = msg.readInt32LE(8);
  const opCode = msg.readInt32LE(12);
  if (opCode === OP_MSG) {
    const flags = msg.readUInt32LE(16);
    if (msg[20] !== 0) throw new Error(`expected a kind-0 section first, got kind ${msg[20]}`);
    const size = msg.readInt32LE(21);
    return { length, requestId, responseTo, opCode, flags, doc: deserialize(msg.subarray(21, 21 + size)) };
  }
  if (opCode === OP_REPLY) {
    const flags = msg.readInt32LE(16);
    const cursorId = msg.readBigInt64LE(20);
    const numberReturned = msg.readInt32LE(32);
    const size = msg.readInt32LE(36);
    return { length, requestId, responseTo, opCode, flags, cursorId, numberReturned, doc: deserialize(msg.subarray(36, 36 + size)) };
  }
  throw new Error(`unexpected reply opCode ${opCode}`);
}

/** Host and port of a single-host `mongodb://` URI without credentials (or null). */
export function hostPort(uri: string): { host: string; port: number } | null {
  const m = /^mongodb:\/\/([^/@,?]+?)(?::(\d+))?(?:[/?]|$)/.exec(uri);
  return m ? { host: m[1], port: m[2] ? Number(m[2]) : 27017 } : null;
}

/** One TCP connection that collects whole messages and notices when the server closes it. */
export class RawConnection {
  private buffered: Buffer = Buffer.alloc(0);
  private readonly messages: Buffer[] = [];
  private waiter: (() => void) | null = null;
  /** Bytes received in total (replies, or anything else). */
  received = 0;
  readonly closed: Promise<void>;
  isClosed = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received += chunk.length;
      this.buffered = Buffer.concat([this.buffered, chunk]);
      while (this.buffered.length >= 4) {
        const len = this.buffered.readInt32LE(0);
        if (len < 16 || this.buffered.length < len) break;
        this.messages.push(this.buffered.subarray(0, len));
        this.buffered = this.buffered.subarray(len);
      }
      this.wake();
    });
    // Writes racing a server-side close may fail with EPIPE/ECONNRESET; the close is what we watch.
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) =>
      socket.once('close', () => {
        this.isClosed = true;
        this.wake();
        resolve();
      }),
    );
  }

  static open(host: string, port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(new RawConnection(socket));
      });
      socket.once('error', reject);
    });
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  write(buf: Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) return resolve();
      this.socket.write(buf, () => resolve());
    });
  }

  /** The next whole message from the server; rejects if the connection closes first or after `timeoutMs`. */
  async next(timeoutMs = 5000): Promise<Reply> {
    const deadline = Date.now() + timeoutMs;
    while (!this.messages.length) {
      if (this.isClosed) throw new Error('connection closed before a reply arrived');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no reply within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
    return parseReply(this.messages.shift()!);
  }

  /** Sends a message and returns the reply. */
  async request(msg: Buffer, timeoutMs = 5000): Promise<Reply> {
    await this.write(msg);
    return this.next(timeoutMs);
  }

  /** Resolves true once the server has closed the connection, false if it is still open after `timeoutMs`. */
  async closedWithin(timeoutMs = 5000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const result = await Promise.race([this.closed.then(() => true), timeout]);
    clearTimeout(timer);
    return result;
  }

  destroy(): void {
    this.socket.destroy();
  }
}
