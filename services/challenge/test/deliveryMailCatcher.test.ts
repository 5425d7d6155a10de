/**
 * The `npm start` mail catcher: maildev started exactly as deploy/local/start.ts starts it (same
 * process spec, same Supervisor), on free ports, receiving a challenge email from the SMTP
 * adapter; the message is read back through maildev's REST API, as a developer's inbox shows it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mailCatcherProcess, type MailCatcherPorts } from '../../../deploy/local/processes.js';
import { Supervisor } from '../../../deploy/local/supervisor.js';
import { deliverChallenge, smtpEmailSender } from '../src/delivery/index.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const output: string[] = [];
const supervisor = new Supervisor((line) => output.push(line));
const mailDir = mkdtempSync(join(tmpdir(), 'maildev-test-'));
let ports: MailCatcherPorts;

beforeAll(async () => {
  ports = { smtp: await freePort(), web: await freePort() };
  await supervisor.start(mailCatcherProcess(ports, join(mailDir, 'inbox')), 20_000);
});
afterAll(async () => {
  await supervisor.stop();
  rmSync(mailDir, { recursive: true, force: true });
});

it('catches a challenge email and shows it in the inbox API', async () => {
  const sender = smtpEmailSender(`smtp://127.0.0.1:${ports.smtp}`, 'Passkey Demo <no-reply@localhost>');
  try {
    await deliverChallenge(
      { email: sender, logger: pino({ level: 'silent' }) },
      {
        type: 'email_link',
        identifierValue: 'ada@example.com',
        value: 'tok_123',
        challengeId: 'cha-33333333333333333333',
        expiresAt: new Date(Date.now() + 900_000),
        appName: 'Demo',
        emailLinkUrl: 'http://localhost:3000/verify',
      },
    );
  } finally {
    sender.close();
  }
  // maildev accepts the message first and parses it afterwards, so the inbox fills a moment later.
  type Mail = { subject: string; text: string; html: string; to: Array<{ address: string }> };
  let inbox: Mail[] = [];
  for (let i = 0; i < 50 && inbox.length === 0; i++) {
    const res = await fetch(`http://127.0.0.1:${ports.web}/email`);
    expect(res.status).toBe(200);
    inbox = (await res.json()) as Mail[];
    if (inbox.length === 0) await new Promise((r) => setTimeout(r, 100));
  }
  expect(inbox).toHaveLength(1);
  expect(inbox[0].subject).toBe('Your Demo sign-in link');
  expect(inbox[0].to[0].address).toBe('ada@example.com');
  expect(inbox[0].text).toContain('http://localhost:3000/verify?challengeID=cha-33333333333333333333&token=tok_123');
  expect(inbox[0].html).toContain('Continue to Demo');
  // The web inbox itself is served too.
  expect((await fetch(`http://127.0.0.1:${ports.web}/`)).status).toBe(200);
});
