/**
 * The TLS front of `npm start`: HTTPS on `https://{projectID}.localhost:<port>`, where the
 * published web SDKs look for the frontend API, passed to the gateway's plain-HTTP frontend
 * listener.
 *
 * It relays bytes, not requests: after the TLS handshake each connection is piped to the gateway
 * as it is, so the gateway sees exactly what the browser sent (the Host header names the project)
 * and the browser gets exactly what the gateway answered. Nothing is parsed, stubbed or rewritten.
 * ALPN offers only HTTP/1.1 because the gateway speaks only that.
 */
import type { AddressInfo } from 'node:net';
import { connect as connectTcp } from 'node:net';
import { createSecureContext, createServer, type SecureContext, type Server, type TLSSocket } from 'node:tls';
import { issueHostCertificate } from './issueHostCertificate.js';
import { isLocalhostName } from './isLocalhostName.js';
import type { LocalCertificateAuthority } from './loadLocalCertificateAuthority.js';

export interface TlsFrontOptions {
  ca: LocalCertificateAuthority;
  /** Where to listen; 0 picks a free port. */
  port: number;
  /**
   * Loopback addresses to listen on, first one first (its port is used for the others); later
   * ones the machine lacks (no IPv6) are skipped. Browsers resolve `*.localhost` to both
   * 127.0.0.1 and ::1.
   */
  hosts: string[];
  /** The gateway's frontend listener. */
  target: { host: string; port: number };
  /** Gets a line for every connection the front refuses or cannot pass on. */
  log?: (line: string) => void;
}

export interface TlsFront {
  port: number;
  close(): Promise<void>;
}

/** Enough for every project a developer creates; a full cache drops its oldest name. */
const MAX_CACHED_NAMES = 256;

export async function serveTlsFront(opts: TlsFrontOptions): Promise<TlsFront> {
  const contexts = new Map<string, Promise<SecureContext>>();
  const contextFor = (name: string): Promise<SecureContext> => {
    let context = contexts.get(name);
    if (!context) {
      if (contexts.size >= MAX_CACHED_NAMES) contexts.delete(contexts.keys().next().value as string);
      context = issueHostCertificate(opts.ca, name).then((c) => createSecureContext({ cert: c.certificateChainPem, key: c.privateKeyPem }));
      // A failed issue is not cached: the next handshake tries again.
      context.catch(() => contexts.delete(name));
      contexts.set(name, context);
    }
    return context;
  };
  // Clients that send no server name (an IP address in the URL) get the certificate for
  // `localhost` and the loopback addresses the front listens on.
  const fallback = await issueHostCertificate(opts.ca, 'localhost', '127.0.0.1', '::1');
  const newServer = (): Server => {
    const server = createServer(
      {
        cert: fallback.certificateChainPem,
        key: fallback.privateKeyPem,
        ALPNProtocols: ['http/1.1'],
        SNICallback: (servername, done) => {
          const name = servername.toLowerCase();
          if (!isLocalhostName(name)) {
            opts.log?.(`refused TLS for "${servername}": the local CA certifies only localhost names and loopback addresses`);
            done(new Error(`not a localhost name: ${servername}`));
            return;
          }
          contextFor(name).then(
            (context) => done(null, context),
            (err: Error) => done(err),
          );
        },
      },
      (socket) => relay(socket, opts),
    );
    // A handshake that fails (a browser that does not trust the CA yet, a port scan) is the
    // client's to report.
    server.on('tlsClientError', () => undefined);
    return server;
  };

  const servers: Server[] = [];
  let port = opts.port;
  try {
    for (const [i, host] of opts.hosts.entries()) {
      const server = newServer();
      try {
        port = await listen(server, port, host);
        servers.push(server);
      } catch (err) {
        if (i === 0 || (err as NodeJS.ErrnoException).code !== 'EADDRNOTAVAIL') throw err;
      }
    }
  } catch (err) {
    await closeAll(servers);
    throw err;
  }
  return { port, close: () => closeAll(servers) };
}

/** Pipes one decrypted connection to the gateway and back; either side closing closes both. */
function relay(socket: TLSSocket, opts: TlsFrontOptions): void {
  const upstream = connectTcp({ host: opts.target.host, port: opts.target.port, noDelay: true });
  socket.setNoDelay(true);
  socket.pipe(upstream).pipe(socket);
  upstream.on('error', (err) => {
    opts.log?.(`could not reach the gateway at ${opts.target.host}:${opts.target.port}: ${err.message}`);
    socket.destroy();
  });
  socket.on('error', () => upstream.destroy());
  socket.on('close', () => upstream.destroy());
  upstream.on('close', () => socket.destroy());
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

async function closeAll(servers: Server[]): Promise<void> {
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
}
