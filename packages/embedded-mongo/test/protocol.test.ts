/**
 * The wire protocol at the byte level, over raw sockets: malformed messages close that one
 * connection (and nothing else), checksums and moreToCome work, and the legacy OP_QUERY
 * handshake gets an OP_REPLY. Positive cases also run against a real MongoDB (MONGODB_URI);
 * the exact handling of malformed input is the embedded store's own, so those are skipped there.
 */
import { randomBytes } from 'node:crypto';
import { serialize } from 'bson';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openTarget, realMongoUri, type Target } from './harness.js';
import { header, hostPort, OP_MSG, OP_REPLY, opMsg, opQuery, RawConnection } from './rawWire.js';

/** Test documents of any shape (the driver's default schema types `_id` as ObjectId). */
 
type Loose = { _id: string | number; [key: string]: any };

const rawUsable = hostPort(realMongoUri ?? 'mongodb://127.0.0.1') !== null;

describe.skipIf(!rawUsable)('wire protocol over raw sockets', () => {
  let target: Target;
  let host: string;
  let port: number;
  const open: RawConnection[] = [];

  beforeAll(async () => {
    target = await openTarget();
    ({ host, port } = hostPort(target.uri)!);
    await target.db.collection<Loose>('canary').insertOne({ _id: 'canary', alive: true });
  });
  afterEach(() => {
    for (const c of open.splice(0)) c.destroy();
  });
  afterAll(async () => {
    await target?.close();
  });

  async function raw(): Promise<RawConnection> {
    const c = await RawConnection.open(host, port);
    open.push(c);
    return c;
  }

  /** The driver's own connection still works: ping and a find. */
  async function driverStillWorks(): Promise<void> {
    expect((await target.db.command({ ping: 1 })).ok).toBe(1);
    expect(await target.db.collection<Loose>('canary').findOne({ _id: 'canary' })).toEqual({ _id: 'canary', alive: true });
  }

  /** A raw connection still answers, too (the server as a whole is fine). */
  async function freshConnectionWorks(): Promise<void> {
    const c = await raw();
    const reply = await c.request(opMsg(77, { ping: 1, $db: 'admin' }));
    expect(reply.responseTo).toBe(77);
    expect(reply.doc.ok).toBe(1);
  }

  describe.skipIf(!!realMongoUri)('malformed input closes the connection', () => {
    const cases: [string, () => Buffer][] = [
      ['an HTTP request (garbage header)', () => Buffer.from('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n')],
      ['random bytes after an invalid length', () => Buffer.concat([Buffer.from([0xff, 0xff, 0xff, 0xff]), randomBytes(200)])],
      ['a well-sized message with an unknown opCode and random body', () => Buffer.concat([header(64, 1, 9999), randomBytes(48)])],
      ['an OP_MSG whose body is not BSON', () => Buffer.concat([header(16 + 4 + 1 + 20, 1, OP_MSG), Buffer.alloc(4), Buffer.from([0]), randomBytes(20)])],
      ['a header claiming a message bigger than 48 MB', () => header(48_000_001, 1, OP_MSG)],
      ['a header claiming 2 GiB', () => header(0x7fffffff, 1, OP_MSG)],
      ['a header with length < 16', () => Buffer.concat([header(12, 1, OP_MSG), Buffer.alloc(16)])],
      ['a header with a negative length', () => header(-5, 1, OP_MSG)],
      ['an OP_MSG with an unknown section kind', () => {
        const doc = serialize({ ping: 1, $db: 'admin' });
        const body = Buffer.concat([Buffer.alloc(4), Buffer.from([7]), doc]);
        return Buffer.concat([header(16 + body.length, 1, OP_MSG), body]);
      }],
      ['an OP_MSG with a wrong checksum', () => opMsg(1, { ping: 1, $db: 'admin' }, { checksum: 'wrong' })],
      ['an OP_MSG with the checksum flag but no room for a checksum', () => {
        const m = opMsg(1, { ping: 1, $db: 'admin' }).subarray(0, 21);
        m.writeInt32LE(21, 0);
        m.writeUInt32LE(1, 16);
        return m;
      }],
      ['an OP_MSG with two body sections', () => {
        const doc = serialize({ ping: 1, $db: 'admin' });
        const body = Buffer.concat([Buffer.alloc(4), Buffer.from([0]), doc, Buffer.from([0]), doc]);
        return Buffer.concat([header(16 + body.length, 1, OP_MSG), body]);
      }],
      ['an OP_MSG whose document sequence overruns the message', () => {
        const m = opMsg(1, { insert: 'c', $db: 'admin' }, { sequences: [['documents', [{ _id: 1 }]]] });
        const seqSizeAt = 16 + 4 + 1 + serialize({ insert: 'c', $db: 'admin' }).length + 1;
        m.writeInt32LE(1000, seqSizeAt);
        return m;
      }],
      ['an OP_MSG with no sections at all (flags only)', () => Buffer.concat([header(20, 1, OP_MSG), Buffer.alloc(4)])],
      ['an OP_COMPRESSED message (compression was never negotiated)', () => Buffer.concat([header(16 + 9 + 10, 1, 2012), Buffer.alloc(19)])],
      ['an OP_QUERY whose query document overruns the message', () => {
        const m = opQuery(1, 'admin.$cmd', { isMaster: 1 });
        m.writeInt32LE(500, m.length - serialize({ isMaster: 1 }).length);
        return m;
      }],
      ['an OP_MSG with an unknown required flag bit', () => opMsg(1, { ping: 1, $db: 'admin' }, { flags: 1 << 4 })],
      ['an OP_MSG with only a document sequence (no body section)', () => {
        const payload = Buffer.concat([Buffer.from('documents\0'), serialize({ _id: 1 })]);
        const size = Buffer.alloc(4);
        size.writeInt32LE(4 + payload.length, 0);
        const body = Buffer.concat([Buffer.alloc(4), Buffer.from([1]), size, payload]);
        return Buffer.concat([header(16 + body.length, 1, OP_MSG), body]);
      }],
    ];

    it.each(cases)('%s', async (_name, bytes) => {
      const c = await raw();
      await c.write(bytes());
      expect(await c.closedWithin(5000)).toBe(true);
      // No reply was sent before closing.
      expect(c.received).toBe(0);
      await driverStillWorks();
      await freshConnectionWorks();
    });

    it('a valid message after an invalid one on the same connection is never answered', async () => {
      const c = await raw();
      await c.write(Buffer.concat([opMsg(1, { ping: 1, $db: 'admin' }, { checksum: 'wrong' }), opMsg(2, { ping: 1, $db: 'admin' })]));
      expect(await c.closedWithin(5000)).toBe(true);
      expect(c.received).toBe(0);
      await driverStillWorks();
    });

    it('answers the requests before a malformed one, then closes', async () => {
      const c = await raw();
      await c.write(Buffer.concat([opMsg(1, { ping: 1, $db: 'admin' }), header(48_000_001, 2, OP_MSG)]));
      expect(await c.closedWithin(5000)).toBe(true);
      await driverStillWorks();
    });
  });

  it('survives a truncated message followed by the client closing', async () => {
    const c = await raw();
    const msg = opMsg(1, { insert: 'truncated', documents: [{ _id: 1 }], $db: target.db.databaseName });
    await c.write(msg.subarray(0, msg.length - 5));
    c.socket.end();
    await c.closedWithin(5000);
    await driverStillWorks();
    await freshConnectionWorks();
    // The half-sent insert never ran.
    expect(await target.db.collection<Loose>('truncated').countDocuments()).toBe(0);
  });

  it('survives a client that sends half a header and closes', async () => {
    const c = await raw();
    await c.write(Buffer.from([0x30, 0x00]));
    c.socket.end();
    await c.closedWithin(5000);
    await driverStillWorks();
  });

  it('answers a message split across many small writes', async () => {
    const c = await raw();
    const msg = opMsg(5, { ping: 1, $db: 'admin' });
    for (let i = 0; i < msg.length; i += 3) await c.write(msg.subarray(i, i + 3));
    const reply = await c.next();
    expect(reply.responseTo).toBe(5);
    expect(reply.doc.ok).toBe(1);
  });

  it('takes and returns a 10 MB document and a 40 MB batch through the driver', async () => {
    const coll = target.db.collection<Loose>('large');
    const big = randomBytes(5 * 1024 * 1024).toString('hex');
    await coll.insertOne({ _id: 'big', big });
    expect((await coll.findOne({ _id: 'big' }))?.big).toBe(big);
    // Forty 1 MB documents: one insert message near the 48 MB limit, read back over getMores.
    const docs = Array.from({ length: 40 }, (_, i) => ({ _id: i, part: big.slice(i * 1024 * 1024, (i + 1) * 1024 * 1024) }));
    await coll.insertMany(docs);
    const back = await coll.find({ _id: { $gte: 0 } }).sort({ _id: 1 }).toArray();
    expect(back.map((d) => d.part)).toEqual(docs.map((d) => d.part));
  });

  it('ignores optional OP_MSG flag bits (exhaustAllowed)', async () => {
    const c = await raw();
    const reply = await c.request(opMsg(30, { ping: 1, $db: 'admin' }, { flags: 1 << 16 }));
    expect(reply.responseTo).toBe(30);
    expect(reply.doc.ok).toBe(1);
  });

  it('answers an OP_MSG that carries a correct CRC-32C checksum', async () => {
    const c = await raw();
    const reply = await c.request(opMsg(41, { ping: 1, $db: 'admin' }, { checksum: true }));
    expect(reply.opCode).toBe(OP_MSG);
    expect(reply.responseTo).toBe(41);
    expect(reply.doc.ok).toBe(1);

    // With a document sequence too.
    const ins = await c.request(
      opMsg(42, { insert: 'checksummed', $db: target.db.databaseName }, { checksum: true, sequences: [['documents', [{ _id: 1 }, { _id: 2 }]]] }),
    );
    expect(ins.responseTo).toBe(42);
    expect(ins.doc).toMatchObject({ ok: 1, n: 2 });
    expect(await target.db.collection<Loose>('checksummed').countDocuments()).toBe(2);
  });

  it('sends no reply to a moreToCome insert, but performs it', async () => {
    const c = await raw();
    const db = target.db.databaseName;
    await c.write(
      opMsg(
        50,
        { insert: 'fireAndForget', ordered: true, writeConcern: { w: 0 }, $db: db },
        { flags: 1 << 1, sequences: [['documents', [{ _id: 'a' }, { _id: 'b' }]]] },
      ),
    );
    // The first reply on this connection answers the find, not the insert; the find (ordered
    // after the insert on the same connection) sees the inserted documents.
    const reply = await c.request(opMsg(51, { find: 'fireAndForget', filter: {}, sort: { _id: 1 }, $db: db }));
    expect(reply.responseTo).toBe(51);
    expect(reply.doc.ok).toBe(1);
    expect(reply.doc.cursor.firstBatch).toEqual([{ _id: 'a' }, { _id: 'b' }]);
    await driverStillWorks();
  });

  it('answers a legacy OP_QUERY isMaster on admin.$cmd with an OP_REPLY', async () => {
    const c = await raw();
    const reply = await c.request(
      opQuery(60, 'admin.$cmd', {
        isMaster: 1,
        helloOk: true,
        client: { driver: { name: 'raw-test', version: '0' }, os: { type: 'linux' } },
        compression: ['zstd', 'zlib', 'snappy'],
      }),
    );
    expect(reply.opCode).toBe(OP_REPLY);
    expect(reply.responseTo).toBe(60);
    expect(reply.numberReturned).toBe(1);
    expect(reply.cursorId).toBe(0n);
    expect(reply.doc.ok).toBe(1);
    expect(reply.doc.ismaster).toBe(true);
    expect(typeof reply.doc.maxWireVersion).toBe('number');
    // The mongodb 7 driver needs at least wire version 9 (MongoDB 4.4); 21 is MongoDB 7.0.
    expect(reply.doc.maxWireVersion).toBeGreaterThanOrEqual(9);
    expect(reply.doc.maxBsonObjectSize).toBe(16 * 1024 * 1024);
    if (!realMongoUri) {
      // A plain standalone: no replica set, no streaming monitoring, and no compression even
      // though the client offered it.
      expect(reply.doc.setName).toBeUndefined();
      expect(reply.doc.compression).toBeUndefined();
      expect(reply.doc.topologyVersion).toBeUndefined();
      expect(reply.doc.msg).toBeUndefined();
    }
    // The connection goes on with OP_MSG.
    const ping = await c.request(opMsg(61, { ping: 1, $db: 'admin' }));
    expect(ping.responseTo).toBe(61);
    expect(ping.doc.ok).toBe(1);
  });
});
