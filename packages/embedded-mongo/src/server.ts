/**
 * The TCP server: frames messages per connection, runs them in order, and replies once the
 * journal has made every change seen so far durable.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { Catalog } from './catalog.js';
import type { CommandContext } from './commands/context.js';
import { runCommand } from './commands/registry.js';
import { CursorRegistry } from './cursors.js';
import type { Doc } from './documents.js';
import { MongoCommandError, toCommandError } from './errors.js';
import { Journal, lockDataDir } from './journal.js';
import { MessageCollector } from './collectMessages.js';
import { DocumentSpill } from './spillDocuments.js';
import { encodeMsgReply, encodeOpReply, MORE_TO_COME, parseMessage, ProtocolError, type Request } from './wire.js';

export interface EmbeddedMongoOptions {
  /** TCP port on 127.0.0.1; 0 picks a free one. Default 27017. */
  port?: number;
  /** Journal and snapshots live here; without it the store is memory-only. */
  dataDir?: string;
  /** How often TTL indexes are swept (mongod's default is 60 s). */
  ttlIntervalMs?: number;
  /** Journal size that triggers a snapshot (default 64 MiB, or the last snapshot's size if larger). */
  compactAfterBytes?: number;
  /**
   * With a data directory: bytes of recently written documents kept in memory (default 64 MiB);
   * older ones are read back from spill files in the data directory (spillDocuments.ts).
   */
  cacheBytes?: number;
  /** Where problems are reported (default: stderr). */
  log?: (line: string) => void;
}

/**
 * Enough for every document about half a minute of 300 logins/s writes (sessions are read back
 * within a second, insights documents at the user's next login); a million stored passkeys then
 * need about 2 KB each (their index entries). 64 MiB held the store above 250 MB of resident
 * memory over one `npm run bench`, most of its old generation being this cache.
 */
export const DEFAULT_CACHE_BYTES = 32 * 2 ** 20;

export interface EmbeddedMongo {
  uri: string;
  port: number;
  /** Stops listening, closes every connection, flushes and closes the journal. */
  stop(): Promise<void>;
}

export async function startEmbeddedMongo(opts: EmbeddedMongoOptions = {}): Promise<EmbeddedMongo> {
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  let journal: Journal | null = null;
  let unlock: (() => void) | null = null;
  let spill: DocumentSpill | null = null;
  if (opts.dataDir) {
    unlock = lockDataDir(opts.dataDir);
    try {
      spill = new DocumentSpill(opts.dataDir, {
        cacheBytes: opts.cacheBytes ?? DEFAULT_CACHE_BYTES,
        onError: (err) => log(`spill file error (documents stay in memory): ${(err as Error).message}`),
      });
    } catch (err) {
      unlock();
      throw err;
    }
  }
  const catalog = new Catalog(spill);
  const cursors = new CursorRegistry();
  if (opts.dataDir) {
    try {
      journal = await Journal.open(opts.dataDir, (r) => catalog.apply(r), () => catalog.capture(), {
        compactAfterBytes: opts.compactAfterBytes,
        onError: (err) => log(`journal error: ${(err as Error).message}`),
      });
    } catch (err) {
      spill?.close();
      unlock?.();
      throw err;
    }
    catalog.journal = journal;
  }

  const sockets = new Set<Socket>();
  let nextConnectionId = 1;
  const server: Server = createServer((socket) => {
    // Every reply is one whole write; Nagle's algorithm could only hold it back (mongod sets TCP_NODELAY too).
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    serveConnection(socket, { catalog, cursors, connectionId: nextConnectionId++, db: 'admin' }, journal, log);
  });

  const sweep = setInterval(() => {
    const now = Date.now();
    for (const db of catalog.databases()) {
      for (const coll of catalog.collections(db)) for (const doc of coll.expired(now)) coll.remove(doc);
    }
    cursors.reapIdle(now);
    journal?.commit().catch(() => undefined);
  }, opts.ttlIntervalMs ?? 60_000);
  sweep.unref();

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 27017, '127.0.0.1', () => resolve());
    });
  } catch (err) {
    // E.g. the port is taken: release the data directory so the caller can retry.
    clearInterval(sweep);
    await journal?.close();
    spill?.close();
    unlock?.();
    throw err;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  let stopped: Promise<void> | null = null;
  return {
    uri: `mongodb://127.0.0.1:${port}`,
    port,
    stop() {
      stopped ??= (async () => {
        clearInterval(sweep);
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          for (const s of sockets) s.destroy();
        });
        await journal?.close();
        spill?.close();
        unlock?.();
      })();
      return stopped;
    },
  };
}

/** Reads whole messages off one socket and answers them strictly in order. */
function serveConnection(socket: Socket, base: CommandContext, journal: Journal | null, log: (line: string) => void): void {
  const collector = new MessageCollector();
  const queue: Buffer[] = [];
  let busy = false;

  const fail = (reason: string) => {
    log(`closing connection ${base.connectionId}: ${reason}`);
    socket.destroy();
  };

  const drain = async () => {
    if (busy) return;
    busy = true;
    try {
      while (queue.length && !socket.destroyed) {
        const raw = queue.shift()!;
        let request: Request;
        try {
          request = parseMessage(raw);
        } catch (err) {
          return fail(err instanceof ProtocolError ? err.message : String(err));
        }
        const reply = await answer(request, base, journal);
        if (reply && !socket.destroyed) socket.write(reply);
      }
    } finally {
      busy = false;
    }
  };

  socket.on('data', (chunk: Buffer) => {
    let messages: Buffer[];
    try {
      messages = collector.push(chunk);
    } catch (err) {
      return fail((err as Error).message);
    }
    queue.push(...messages);
    void drain();
  });
  socket.on('error', () => socket.destroy());
}

/** Runs one request; returns the encoded reply, or null when the client asked for none (moreToCome). */
async function answer(request: Request, base: CommandContext, journal: Journal | null): Promise<Buffer | null> {
  let cmd: Doc;
  let db: string;
  if (request.kind === 'query') {
    cmd = request.query;
    db = request.collection.endsWith('.$cmd') ? request.collection.slice(0, -5) : '';
  } else {
    cmd = request.command;
    db = typeof cmd.$db === 'string' ? cmd.$db : '';
  }
  let reply: Doc;
  try {
    if (!db) throw new MongoCommandError('InvalidNamespace', 'commands must name their database ($db or <db>.$cmd)');
    reply = runCommand(cmd, { ...base, db });
  } catch (err) {
    reply = toCommandError(err).toReply();
  }
  try {
    // Nothing is acknowledged (and nothing another client wrote is shown) before it is durable.
    await journal?.commit();
  } catch (err) {
    reply = new MongoCommandError('InternalError', `journal write failed: ${(err as Error).message}`).toReply();
  }
  if (request.kind === 'query') return encodeOpReply(request.header.requestId, reply);
  if (request.flags & MORE_TO_COME) return null;
  return encodeMsgReply(request.header.requestId, reply);
}
