/** The local stack's processes and their environment; shared by `npm start` and the end-to-end tests. */
import { createRequire } from 'node:module';
import { totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { bundleArgs, type BundleName } from './buildBundles.js';
import { newInternalAuthKey } from './localSecrets.js';
import type { ProcessSpec } from './supervisor.js';

export interface StackPorts {
  ceremony: number;
  challenge: number;
  connect: number;
  events: number;
  frontend: number;
  backend: number;
}

export const DEFAULT_PORTS: StackPorts = { ceremony: 7101, challenge: 7102, connect: 7103, events: 7104, frontend: 8080, backend: 8081 };

export interface StackEnv {
  mongodbUri: string;
  masterKey: string;
  /**
   * INTERNAL_AUTH_KEYS of the stack's processes (services/runtime/internalAuth.ts); a fresh random
   * key per stack when not given, since nothing outside the stack calls the services directly.
   */
  internalAuthKeys?: string;
  ports: StackPorts;
  /** Public URLs stored on new projects ("{projectID}" is replaced by the project ID). */
  frontendApiUrl: string;
  backendApiUrl: string;
  logLevel?: string;
  /** SMTP server the challenge service sends email through (the mail catcher under `npm start`); no email delivery without it. */
  smtpUrl?: string;
  /** From header of those emails; defaults to DEFAULT_EMAIL_FROM. */
  emailFrom?: string;
  /** Endpoint that receives each SMS as a signed JSON POST (SMS_WEBHOOK_URL); no SMS delivery without it. */
  smsWebhookUrl?: string;
  /** HMAC key for those requests (SMS_WEBHOOK_SECRET, at least 32 characters); required with smsWebhookUrl. */
  smsWebhookSecret?: string;
  /**
   * Delays between webhook attempts in seconds (WEBHOOK_RETRY_SCHEDULE, e.g. "0.5,1"); the
   * Standard Webhooks schedule when not given. Tests shorten it.
   */
  webhookRetrySchedule?: string;
  /** OUTBOX_RELAY_HOLD_MS of connect, ceremony and challenge, a test setting: their relays publish an event only once it is this old. */
  outboxRelayHoldMs?: number;
}

export const DEFAULT_EMAIL_FROM = 'Passkey Demo <no-reply@localhost>';

export interface MailCatcherPorts {
  smtp: number;
  web: number;
}

export const DEFAULT_MAIL_CATCHER_PORTS: MailCatcherPorts = { smtp: 1025, web: 1080 };

async function httpReady(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    return res.status === 200;
  } catch {
    return false;
  }
}

/** A process runs its bundle (built by buildBundles, which callers run first) with plain node: no compiling at start. */
const node = (bundle: BundleName, args: string[] = []) => ({ command: process.execPath, args: bundleArgs(bundle, args) });

/**
 * The services' heap. Old generation: their live heap is about 50 MB under load (every cache is
 * bounded), but with V8's default limit (about 4 GiB on a machine with 16 GB or more) they let
 * garbage pile up to 250 MB of resident memory before collecting it; a limit sized to the
 * service, as a container's would be, keeps them far below that. Young generation: almost
 * everything a request allocates dies with the request, and the scavenger's cost grows with how
 * often it runs. 32 MB semi-spaces (Node 24's default grows them to 64 MB, Node 20's to 16 MB)
 * took login from 203–224/s at 16 MB to 243–293/s on the 2-core machine, for about 30 MB more
 * resident memory per process; 64 MB gained a little more but brought the ceremony service to
 * 240 MB (`npm run bench`, docs/benchmarks.md).
 *
 * Growing factor: under a heap limit below 256 MB V8 assumes a small device and lets the old
 * generation grow by only 1.3× between full collections. With about 30 MB live, the ceremony
 * service and the gateway each ran a full collection every 1.3 s under login load (45 and 38 in
 * 55 s). Twice the live size (--heap-growing-percent=100; it cannot go in NODE_OPTIONS) cut that
 * to 17 and 20 and the CPU per login by about a tenth, for about 28 MB more resident memory in
 * the ceremony service. The image's ENTRYPOINT passes the same flag.
 */
const SERVICE_HEAP_FLAGS = ['--max-old-space-size=192', '--max-semi-space-size=32', '--heap-growing-percent=100'];
const service = (bundle: BundleName) => ({ command: process.execPath, args: [...SERVICE_HEAP_FLAGS, ...bundleArgs(bundle)] });

function storeHeapLimitMb(): number {
  return Math.max(4096, Math.floor(totalmem() / 2 ** 20 / 2));
}

/**
 * The embedded MongoDB-compatible store (used when MONGODB_URI is not set), journaling to
 * `dataDir`; ready once it prints the URI it listens on.
 */
export function embeddedMongoProcess(opts: { port: number; dataDir: string }): ProcessSpec {
  const spec = node('mongo', ['--port', String(opts.port), '--data-dir', opts.dataDir, '--stop-with-stdin']);
  return {
    name: 'mongo',
    command: spec.command,
    // The store's heap holds every index entry and document key (about 1.5 KB per stored passkey
    // with its user, handle, insights and events; the documents themselves spill to disk once not
    // written lately) and is given half the machine's memory, never less than 4 GiB, so that even
    // many millions of passkeys do not run into V8's default limit.
    // 16 MB semi-spaces, Node 20's default: Node 24's grow to 64 MB, which held the store at up to
    // 370 MB of resident memory over one `npm run bench` for no measurable CPU saved.
    // (--optimize-for-size kept it under 185 MB, but at 1,000,000 stored passkeys its collections
    // raised the login p99 to 1.7 s.)
    // The old generation grows by at most half before it is collected (--heap-growing-percent):
    // with a heap limit of gigabytes V8 lets it grow up to fourfold, and the store's resident
    // memory reached 281 MB in the bench's register scenario with 81 MB live; with 50 % (and the
    // arenas below) it peaked at 160 MB in a register-then-challenge run, for about the same CPU
    // per registration. Two glibc malloc arenas
    // (MALLOC_ARENA_MAX) instead of up to eight per core: the journal's writes run on libuv's
    // threads, and each thread's arena keeps its own freed memory.
    args: [`--max-old-space-size=${storeHeapLimitMb()}`, '--max-semi-space-size=16', '--heap-growing-percent=50', ...spec.args],
    env: { MALLOC_ARENA_MAX: '2' },
    ready: (lines) => lines.some((l) => l.startsWith('listening on mongodb://')),
    // The services flush into it while they stop (supervisor.ts).
    stopLast: true,
  };
}

/**
 * maildev, the local mail catcher: an SMTP server that keeps every message and shows it in a web
 * inbox (REST API at /email). Bound to 127.0.0.1 only, since it accepts mail from anyone who can
 * reach it. Messages are kept in `mailDirectory`, so the inbox survives restarts.
 */
export function mailCatcherProcess(ports: MailCatcherPorts, mailDirectory: string): ProcessSpec {
  const bin = join(dirname(createRequire(import.meta.url).resolve('maildev/package.json')), 'bin', 'maildev');
  const web = `http://127.0.0.1:${ports.web}`;
  return {
    name: 'mail',
    command: process.execPath,
    args: [bin, '--ip', '127.0.0.1', '--smtp', String(ports.smtp), '--web', String(ports.web), '--mail-directory', mailDirectory],
    ready: () => httpReady(`${web}/email`),
  };
}

export const DEFAULT_DEMO_PORT = 3000;

/**
 * The demo app (examples/demo): a relying party on http://localhost:<port> for the demo
 * project in `projectFile`; `mailInboxUrl` is linked from its code steps.
 */
export function demoProcess(opts: { port: number; projectFile: string; mailInboxUrl?: string; webSdkUrlSuffix?: string }): ProcessSpec {
  return {
    name: 'demo',
    ...node('demo'),
    env: { DEMO_PORT: String(opts.port), DEMO_PROJECT_FILE: opts.projectFile, HOST: '127.0.0.1', ...(opts.mailInboxUrl ? { MAIL_INBOX_URL: opts.mailInboxUrl } : {}), ...(opts.webSdkUrlSuffix ? { WEB_SDK_URL_SUFFIX: opts.webSdkUrlSuffix } : {}) },
    ready: () => httpReady(`http://127.0.0.1:${opts.port}/healthz`),
  };
}

export const DEFAULT_TLS_FRONT_PORT = 8443;

/**
 * The TLS front (deploy/local/tls): HTTPS for `https://{projectID}.localhost:<port>`, the URL the
 * published web SDKs build from their `frontendApiUrlSuffix`, relayed to the gateway's frontend
 * listener. Its certificate authority is made in `caDir` and reused for its year.
 */
export function tlsFrontProcess(opts: { port: number; gatewayPort: number; caDir: string }): ProcessSpec {
  return {
    name: 'tls-front',
    ...node('tls-front'),
    env: { TLS_FRONT_PORT: String(opts.port), GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: String(opts.gatewayPort), TLS_DIR: opts.caDir },
    ready: (lines) => lines.some((l) => l.startsWith('listening on https://')),
  };
}

/** Services first (connect, challenge, ceremony, events), then the gateway in front of them. */
export function stackProcesses(env: StackEnv): ProcessSpec[] {
  const p = env.ports;
  const common = {
    MONGODB_URI: env.mongodbUri,
    MASTER_KEY: env.masterKey,
    INTERNAL_AUTH_KEYS: env.internalAuthKeys ?? newInternalAuthKey(),
    LOG_LEVEL: env.logLevel ?? 'info',
    HOST: '127.0.0.1',
  };
  const hold: Record<string, string> = env.outboxRelayHoldMs ? { OUTBOX_RELAY_HOLD_MS: String(env.outboxRelayHoldMs) } : {};
  const urls = {
    CEREMONY_URL: `http://127.0.0.1:${p.ceremony}`,
    CHALLENGE_URL: `http://127.0.0.1:${p.challenge}`,
    CONNECT_URL: `http://127.0.0.1:${p.connect}`,
    EVENTS_URL: `http://127.0.0.1:${p.events}`,
  };
  return [
    {
      name: 'connect',
      ...service('connect'),
      env: { ...common, ...urls, ...hold, PORT: String(p.connect), FRONTEND_API_URL: env.frontendApiUrl, BACKEND_API_URL: env.backendApiUrl },
      ready: () => httpReady(`${urls.CONNECT_URL}/readyz`),
    },
    {
      name: 'challenge',
      ...service('challenge'),
      env: {
        ...common,
        ...urls,
        ...hold,
        PORT: String(p.challenge),
        ...(env.smtpUrl ? { SMTP_URL: env.smtpUrl, EMAIL_FROM: env.emailFrom ?? DEFAULT_EMAIL_FROM } : {}),
        ...(env.smsWebhookUrl ? { SMS_WEBHOOK_URL: env.smsWebhookUrl } : {}),
        ...(env.smsWebhookSecret ? { SMS_WEBHOOK_SECRET: env.smsWebhookSecret } : {}),
      },
      ready: () => httpReady(`${urls.CHALLENGE_URL}/readyz`),
    },
    {
      name: 'ceremony',
      ...service('ceremony'),
      env: { ...common, ...urls, ...hold, PORT: String(p.ceremony) },
      ready: () => httpReady(`${urls.CEREMONY_URL}/readyz`),
    },
    {
      name: 'events',
      ...service('events'),
      env: {
        ...common,
        PORT: String(p.events),
        // The local stack's receivers are on this machine: loopback and private addresses are
        // allowed here, refused in the production configuration (docs/api/webhooks.md).
        WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
        ...(env.webhookRetrySchedule ? { WEBHOOK_RETRY_SCHEDULE: env.webhookRetrySchedule } : {}),
        // Producers rely on "nobody subscribes" for half a second, so a create waits 1.5 s, not 4 s.
        WEBHOOK_SUBSCRIPTION_CACHE_MS: '500',
      },
      ready: () => httpReady(`${urls.EVENTS_URL}/readyz`),
    },
    {
      name: 'gateway',
      ...service('gateway'),
      env: {
        ...urls,
        LOG_LEVEL: common.LOG_LEVEL,
        INTERNAL_AUTH_KEYS: common.INTERNAL_AUTH_KEYS,
        HOST: '127.0.0.1',
        FRONTEND_PORT: String(p.frontend),
        BACKEND_PORT: String(p.backend),
        // The OpenAPI documents name these as their servers.
        FRONTEND_API_URL: env.frontendApiUrl,
        BACKEND_API_URL: env.backendApiUrl,
      },
      ready: () => httpReady(`http://127.0.0.1:${p.frontend}/readyz`),
    },
  ];
}
