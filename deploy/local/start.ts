/**
 * `npm start`: the whole local stack on one machine. Compiles the processes into .local/build
 * if a source changed (buildBundles.ts), starts the embedded MongoDB-compatible store (unless
 * MONGODB_URI points at a real MongoDB) and the maildev mail catcher (unless SMTP_URL points at a
 * real mail server), then the three services and the gateway, all at once, while it creates or
 * reuses the demo projects (one serving the self-service sign-up, one for connect, where it is off)
 * and starts the demo app on them (http://localhost:3000, DEMO_PORT), and the TLS front that serves
 * the frontend API on https://{projectID}.localhost:8443 for the published web SDKs
 * (TLS_FRONT_PORT; TLS_FRONT=off leaves it out). It waits until all are ready.
 *
 * The ready signal is .local/demo-project.json (the demo projects' credentials): removed first
 * thing, written (atomically) only once every process answers its readiness check, and removed
 * again when the stack stops, so a script can poll for it and call the stack the moment it appears.
 * The demo app runs on its own copy, .local/demo-app-project.json, which it needs before the stack
 * is ready; that copy also keeps the credentials for the next start to reuse.
 *
 * Ctrl-C / SIGTERM / SIGHUP stops everything, the embedded store last (supervisor.ts, stopLast):
 * the services write what they still hold while they stop. A crashed process is restarted.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildBundles } from './buildBundles.js';
import { LOCAL_DIR, localInternalAuthKeys, localMasterKey } from './localSecrets.js';
import { DEFAULT_DEMO_PORT, DEFAULT_MAIL_CATCHER_PORTS, DEFAULT_PORTS, DEFAULT_TLS_FRONT_PORT, demoProcess, embeddedMongoProcess, mailCatcherProcess, stackProcesses, tlsFrontProcess } from './processes.js';
import { Supervisor } from './supervisor.js';
import { writeFileAtomically } from './writeFileAtomically.js';

/** The ready signal: exists only while the whole stack answers. */
const DEMO_FILE = join(LOCAL_DIR, 'demo-project.json');
/** The demo app's copy of the same credentials, written before it starts. */
const DEMO_APP_FILE = join(LOCAL_DIR, 'demo-app-project.json');

// A file left by an earlier run (killed before it could remove it) must not read as "ready" now;
// moved, not deleted, so its credentials are reused when they still work (ensureDemoProject).
mkdirSync(LOCAL_DIR, { recursive: true });
if (existsSync(DEMO_FILE)) renameSync(DEMO_FILE, DEMO_APP_FILE);

const supervisor = new Supervisor();
let shuttingDown = false;
const shutdown = async (signal: string) => {
  if (shuttingDown) return;
  shuttingDown = true;
  // First, so nothing starts calling a stack that is going away.
  rmSync(DEMO_FILE, { force: true });
  process.stdout.write(`\n${signal}: stopping the local stack…\n`);
  await supervisor.stop();
  process.stdout.write('local stack stopped\n');
  process.exit(0);
};
// SIGHUP: the terminal closed. It reaches the store no more than Ctrl-C does (own process group).
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(signal));

const ports = DEFAULT_PORTS;
const mongoPort = Number(process.env.EMBEDDED_MONGO_PORT ?? 27017);
const masterKey = process.env.MASTER_KEY ?? localMasterKey();
const frontendApiUrl = process.env.FRONTEND_API_URL ?? `http://localhost:${ports.frontend}`;
const backendApiUrl = process.env.BACKEND_API_URL ?? `http://localhost:${ports.backend}`;
const demoPort = Number(process.env.DEMO_PORT ?? DEFAULT_DEMO_PORT);
const tlsFrontPort = process.env.TLS_FRONT === 'off' ? undefined : Number(process.env.TLS_FRONT_PORT ?? DEFAULT_TLS_FRONT_PORT);
const mailPorts = {
  smtp: Number(process.env.MAILDEV_SMTP_PORT ?? DEFAULT_MAIL_CATCHER_PORTS.smtp),
  web: Number(process.env.MAILDEV_WEB_PORT ?? DEFAULT_MAIL_CATCHER_PORTS.web),
};

try {
  // INTERNAL_AUTH_KEYS when given (checked before anything starts), else a fresh key for this stack.
  const internalAuthKeys = localInternalAuthKeys(process.env.INTERNAL_AUTH_KEYS);
  const buildStarted = Date.now();
  if ((await buildBundles()).built) process.stdout.write(`compiled the processes into .local/build in ${Date.now() - buildStarted} ms\n`);
  let smtpUrl = process.env.SMTP_URL;
  // Only the host: SMTP_URL may carry credentials.
  let mailInboxUrl: string | undefined;
  let mailLine = `  Email          via ${smtpUrl && URL.canParse(smtpUrl) ? new URL(smtpUrl).host : 'SMTP_URL'} (SMTP_URL is set, so no local mail catcher)`;
  // Nothing waits for the mail catcher: the services connect to SMTP only to send.
  let mailReady: Promise<void> = Promise.resolve();
  if (!smtpUrl) {
    // maildev creates only the last directory level itself.
    mkdirSync('.data', { recursive: true });
    mailReady = supervisor.start(mailCatcherProcess(mailPorts, '.data/maildev'));
    // Awaited with the others below; this keeps it handled if the store fails first.
    mailReady.catch(() => undefined);
    smtpUrl = `smtp://127.0.0.1:${mailPorts.smtp}`;
    mailInboxUrl = `http://127.0.0.1:${mailPorts.web}`;
    mailLine = `  Mail inbox     http://127.0.0.1:${mailPorts.web}   (maildev catches every email the services send; SMTP ${smtpUrl}, mail in .data/maildev)`;
  }
  const storeReady = process.env.MONGODB_URI ? Promise.resolve(process.env.MONGODB_URI) : startEmbeddedStore();
  // Loaded while the store starts, not before: loading blocks this process, so the store would
  // start later (see ensureDemoProject.ts). The catch only keeps a failure handled if the store
  // fails first; the module is awaited below.
  const demoProjectModule = import('./ensureDemoProject.js');
  demoProjectModule.catch(() => undefined);
  const mongodbUri = await storeReady;
  const emailFrom = process.env.EMAIL_FROM;
  // Every process needs only the store to start (they call each other per request), and the
  // demo project is written straight to the store, so all of it starts at once.
  const services = stackProcesses({ mongodbUri, masterKey, internalAuthKeys, ports, frontendApiUrl, backendApiUrl, smtpUrl, emailFrom }).map((spec) => supervisor.start(spec));
  // The front needs nothing to start: it reaches the gateway per connection.
  if (tlsFrontPort !== undefined) services.push(supervisor.start(tlsFrontProcess({ port: tlsFrontPort, gatewayPort: ports.frontend, caDir: join(LOCAL_DIR, 'tls') })));
  const demoStarted = (async () => {
    const { ensureDemoProject } = await demoProjectModule;
    const project = await ensureDemoProject({ mongodbUri, masterKey, frontendApiUrl, backendApiUrl, savedFile: DEMO_APP_FILE });
    writeFileAtomically(DEMO_APP_FILE, `${JSON.stringify(project, null, 2)}\n`);
    await supervisor.start(demoProcess({ port: demoPort, projectFile: DEMO_APP_FILE, mailInboxUrl, webSdkUrlSuffix: tlsFrontPort === undefined ? undefined : `localhost:${tlsFrontPort}` }));
    return project;
  })();
  await allSettled([demoStarted, mailReady, ...services]);
  const demo = await demoStarted;
  // Every start above resolved only once its process answered its readiness check (/readyz for
  // the services and the gateway), so a call made the moment this file appears is served.
  // Ctrl-C while starting: no ready file for a stack being stopped (the catch below stays quiet).
  if (shuttingDown) throw new Error('stopping');
  writeFileAtomically(DEMO_FILE, `${JSON.stringify(demo, null, 2)}\n`);
  const demoUrl = `http://localhost:${demoPort}`;
  const demoOriginNote = demo.origins.includes(demoUrl) ? '' : `   (not an origin of the demo project: passkeys fail there; use DEMO_PORT=3000)`;
  process.stdout.write(
    [
      '',
      'Local stack is up:',
      `  Frontend API   ${frontendApiUrl}   (bearer tokens, CORS for the project's origins)`,
      ...(tlsFrontPort !== undefined
        ? [`  Frontend API   https://${demo.projectID}.localhost:${tlsFrontPort}   (HTTPS for the Corbado web SDKs: frontendApiUrlSuffix "localhost:${tlsFrontPort}"; trust ${join(LOCAL_DIR, 'tls', 'ca.pem')}, see docs/web-sdks.md)`]
        : []),
      `  Backend API    ${backendApiUrl}   (HTTP Basic: project ID + API secret)`,
      `  Services       ceremony :${ports.ceremony}  challenge :${ports.challenge}  connect :${ports.connect}  events :${ports.events}  (Connect RPC, /healthz /readyz /metrics)`,
      `  MongoDB        ${mongodbUri}${process.env.MONGODB_URI ? '' : '   (embedded store, data in .data/mongo)'}`,
      mailLine,
      `  Demo project   ${demo.projectID} (self-service sign-up on; RP ID ${demo.rpID}, origin ${demo.origins.join(', ')}); credentials in ${DEMO_FILE}`,
      `  Connect demo   ${demo.connect.projectID} (self-service sign-up off; RP ID ${demo.connect.rpID}); credentials under "connect" in ${DEMO_FILE}`,
      `  Demo app       ${demoUrl}${demoOriginNote}   (sign-up/login, account, web-js pages; connect and backend API pages on the connect project)`,
      '',
      `Open ${demoUrl} to try passkeys in your browser.`,
      '',
      `Try: curl -u ${demo.projectID}:$(node -p "require('./${DEMO_FILE}').apiSecret") -H 'content-type: application/json' \\`,
      `       -d '{"fullName":"Ada","status":"active"}' ${backendApiUrl}/v2/users`,
      '',
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
} catch (err) {
  // Ctrl-C during start-up fails the starts still pending; shutdown() is already stopping, and
  // that is no failure to report.
  if (!shuttingDown) {
    process.stderr.write(`npm start failed: ${(err as Error).message}\n`);
    await supervisor.stop();
    process.exit(1);
  }
}

/**
 * Waits for all the promises, then fails with the first failure: returning at the first one
 * would stop the supervisor while other processes are still being spawned.
 */
async function allSettled(promises: Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(promises)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** The embedded store on EMBEDDED_MONGO_PORT, data in .data/mongo; its URI once it listens. */
async function startEmbeddedStore(): Promise<string> {
  await supervisor.start(embeddedMongoProcess({ port: mongoPort, dataDir: '.data/mongo' }));
  return `mongodb://127.0.0.1:${mongoPort}/passkeyauth`;
}
