/**
 * Crash safety: the CLI runs as a child process while this test writes to it through the driver,
 * recording every acknowledged write; the child is SIGKILLed mid-stream, restarted on the same
 * data directory, and every acknowledged write must be there. Internals of the embedded store,
 * so skipped against a real MongoDB.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MongoClient, MongoNetworkError, MongoServerSelectionError, MongoTopologyClosedError } from 'mongodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDir, startCli, stopCli, waitFor, type CliProcess } from './cliProcess.js';

interface Acked {
  /** `_id`s of acknowledged inserts. */
  inserted: Set<string>;
  /** Inserts sent (acknowledged or not). */
  insertAttempts: number;
  /** Highest counter value an acknowledged `$inc` returned, and how many `$inc`s were sent. */
  counter: number;
  incAttempts: number;
  /** Per writer: the last acknowledged `$set` of its own document, and the last one sent. */
  lastSet: Map<number, number>;
  lastSetSent: Map<number, number>;
}

const WRITERS = 4;
const PAD = 'p'.repeat(300);

function clientFor(uri: string): MongoClient {
  // No retries: every acknowledgement the test records is the answer to exactly one attempt.
  return new MongoClient(uri, {
    serverSelectionTimeoutMS: 1000,
    connectTimeoutMS: 1000,
    retryWrites: false,
    retryReads: false,
    maxPoolSize: WRITERS + 1,
  });
}

/** Asserts that the server at `uri` holds every write in `acked`. */
async function verify(uri: string, acked: Acked, label: string): Promise<void> {
  const client = clientFor(uri);
  try {
    await client.connect();
    const db = client.db('crash');
    const found = new Set((await db.collection<{ _id: string }>('events').find({}, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
    const missing = [...acked.inserted].filter((id) => !found.has(id));
    expect(missing, `${label}: acknowledged inserts missing after restart`).toEqual([]);
    expect(found.size, `${label}: more inserts than were ever sent`).toBeLessThanOrEqual(acked.insertAttempts);

    const counter = await db.collection<{ _id: string; n: number }>('counters').findOne({ _id: 'counter' });
    if (acked.counter > 0) {
      expect(counter, `${label}: counter document missing`).not.toBeNull();
      expect(counter!.n, `${label}: counter went back`).toBeGreaterThanOrEqual(acked.counter);
    }
    if (counter) expect(counter.n, `${label}: counter above the number of $inc sent`).toBeLessThanOrEqual(acked.incAttempts);

    for (const [w, last] of acked.lastSet) {
      const doc = await db.collection<{ _id: string; last: number }>('writers').findOne({ _id: `w${w}` });
      expect(doc?.last, `${label}: writer ${w}'s acknowledged $set lost`).toBeGreaterThanOrEqual(last);
      expect(doc!.last).toBeLessThanOrEqual(acked.lastSetSent.get(w)!);
    }
  } finally {
    await client.close();
  }
}

/** What the kill looks like to the driver; anything else (a server error reply) is a failure. */
function causedByKill(err: unknown): boolean {
  return err instanceof MongoNetworkError || err instanceof MongoServerSelectionError || err instanceof MongoTopologyClosedError;
}

/** Writes until the kill cuts it off, recording what was acknowledged; returns an unexpected error, if any. */
async function writeLoop(client: MongoClient, round: number, w: number, acked: Acked): Promise<unknown> {
  const db = client.db('crash');
  const events = db.collection<{ _id: string; round: number; w: number; seq: number; pad: string }>('events');
  const counters = db.collection<{ _id: string; n: number }>('counters');
  const writers = db.collection<{ _id: string; last: number }>('writers');
  try {
    for (let seq = 0; ; seq++) {
      const id = `r${round}-w${w}-${seq}`;
      acked.insertAttempts++;
      await events.insertOne({ _id: id, round, w, seq, pad: PAD });
      acked.inserted.add(id);

      acked.incAttempts++;
      const after = await counters.findOneAndUpdate({ _id: 'counter' }, { $inc: { n: 1 } }, { upsert: true, returnDocument: 'after' });
      expect(after).not.toBeNull();
      acked.counter = Math.max(acked.counter, after!.n);

      const value = round * 1_000_000 + seq;
      acked.lastSetSent.set(w, value);
      await writers.updateOne({ _id: `w${w}` }, { $set: { last: value } }, { upsert: true });
      acked.lastSet.set(w, value);
    }
  } catch (err) {
    // The server was killed: whatever was in flight is neither counted nor required.
    return causedByKill(err) ? undefined : err;
  }
}

describe.skipIf(!!process.env.MONGODB_URI)('crash safety (SIGKILL)', () => {
  let dir: string;
  let proc: CliProcess | undefined;

  beforeEach(async () => {
    dir = await makeTempDir();
    proc = undefined;
  });
  afterEach(async () => {
    if (proc) await stopCli(proc, 'SIGKILL');
    await removeTempDir(dir);
  });

  /** The generation of the data directory's newest journal (one per snapshot taken). */
  function journalGeneration(): number {
    const gens = readdirSync(join(dir, 'data')).flatMap((f) => {
      const m = /^journal-(\d+)\.log$/.exec(f);
      return m ? [Number(m[1])] : [];
    });
    return Math.max(...gens);
  }

  async function killRounds(rounds: number, extraArgs: string[]): Promise<Acked> {
    const dataDir = join(dir, 'data');
    const args = ['--port', '0', '--data-dir', dataDir, ...extraArgs];
    const acked: Acked = { inserted: new Set(), insertAttempts: 0, counter: 0, incAttempts: 0, lastSet: new Map(), lastSetSent: new Map() };
    for (let round = 0; round < rounds; round++) {
      proc = await startCli(args);
      // Everything acknowledged by earlier rounds survived their kill (and the restarts since).
      await verify(proc.uri, acked, `before round ${round}`);

      const client = clientFor(proc.uri);
      await client.connect();
      const before = acked.inserted.size;
      const loops = Array.from({ length: WRITERS }, (_, w) => writeLoop(client, round, w, acked));
      // Let some writes through, then kill at a random moment in the middle of the stream.
      await waitFor(() => acked.inserted.size >= before + 20, 'the first acknowledged writes', 15_000, 5);
      await new Promise((r) => setTimeout(r, 20 + Math.floor(Math.random() * 250)));
      const killed = proc;
      const exit = await stopCli(killed, 'SIGKILL');
      // It was still running (it did not die on its own before the kill).
      expect(exit.signal, `round ${round}; server stderr: ${killed.stderr()}`).toBe('SIGKILL');
      proc = undefined;
      const unexpected = (await Promise.all(loops)).filter((e) => e !== undefined);
      expect(unexpected, `round ${round}: writes failed other than by the kill`).toEqual([]);
      await client.close().catch(() => undefined);
      expect(acked.inserted.size).toBeGreaterThan(before);
    }
    // A final restart: all of it is there, and a clean shutdown still works after the crashes.
    proc = await startCli(args);
    await verify(proc.uri, acked, 'after the last round');
    expect((await stopCli(proc, 'SIGTERM')).code).toBe(0);
    proc = undefined;
    return acked;
  }

  it('keeps every acknowledged insert and $inc across repeated kills', async () => {
    const acked = await killRounds(4, []);
    expect(acked.inserted.size).toBeGreaterThanOrEqual(80);
    expect(journalGeneration()).toBe(0);
  });

  it('keeps every acknowledged write when kills land during journal compaction', async () => {
    // A tiny threshold makes the store switch journals and write snapshots all the time.
    const acked = await killRounds(4, ['--compact-after-bytes', '4096']);
    expect(acked.inserted.size).toBeGreaterThanOrEqual(80);
    // The option took effect: snapshots were taken again and again.
    expect(journalGeneration()).toBeGreaterThanOrEqual(4);
  });
});
