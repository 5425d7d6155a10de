/**
 * Email delivery end to end: deliverChallenge / sendNotification with the real nodemailer SMTP
 * adapter into an SMTP server started in the test (smtp-server), messages parsed with mailparser.
 * Also retries against a server that refuses messages, and what reaches the logs.
 */
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { pino } from 'pino';
import { htmlOf, TestSmtp, toOf } from './testSmtp.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../runtime/errors.js';
import {
  checkDeliverable,
  deliverChallenge,
  sendNotification,
  smtpEmailSender,
  type DeliverChallengeInput,
  type DeliveryDeps,
  type SmtpEmailSender,
} from '../src/delivery/index.js';

const NOW = new Date('2030-01-01T12:00:00.000Z');
const inMinutes = (m: number) => new Date(NOW.getTime() + m * 60_000);


/** pino writing JSON lines into an array, with the service logger's settings that matter here. */
function captureLogger() {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

const smtp = new TestSmtp();
let sender: SmtpEmailSender;
let sleeps: number[];
let log: ReturnType<typeof captureLogger>;
let deps: DeliveryDeps;

beforeAll(async () => {
  await smtp.start();
  sender = smtpEmailSender(smtp.url, 'Passkey Demo <no-reply@localhost>', { timeoutMs: 5000 });
});
afterAll(async () => {
  sender.close();
  await smtp.stop();
});
beforeEach(() => {
  smtp.received.length = 0;
  smtp.refuseNext = 0;
  smtp.refused = 0;
  sleeps = [];
  log = captureLogger();
  deps = { email: sender, logger: log.logger, now: () => new Date(NOW), sleep: async (ms) => void sleeps.push(ms) };
});

const otp = (over: Partial<DeliverChallengeInput> = {}): DeliverChallengeInput => ({
  type: 'email_otp',
  identifierValue: 'ada@example.com',
  value: '482915',
  challengeId: 'cha-11111111111111111111',
  expiresAt: inMinutes(5),
  appName: 'Acme Shop',
  emailLinkUrl: '',
  ...over,
});


describe('email_otp', () => {
  it('sends a plain-text and an HTML email with the code, the app name and the expiry', async () => {
    const receipt = await deliverChallenge(deps, otp());
    expect(receipt).toEqual({ channel: 'email', attempts: 1 });
    expect(smtp.received).toHaveLength(1);
    const mail = smtp.received[0];
    expect(toOf(mail)).toBe('ada@example.com');
    expect(mail.from?.value[0]).toEqual({ address: 'no-reply@localhost', name: 'Passkey Demo' });
    expect(mail.subject).toBe('482915 is your Acme Shop verification code');
    expect(mail.text).toContain('Use this code to verify your email address with Acme Shop:');
    expect(mail.text).toContain('482915');
    expect(mail.text).toContain('The code expires in 5 minutes.');
    expect(htmlOf(mail)).toContain('>482915</p>');
    expect(htmlOf(mail)).toContain('Acme Shop');
    expect(htmlOf(mail)).toContain('The code expires in 5 minutes.');
    expect(htmlOf(mail)).toMatch(/^<!doctype html>/);
  });

  it('escapes the app name in HTML and keeps it verbatim in the subject and text', async () => {
    const appName = `Ada & <Bob's> "Shop"`;
    await deliverChallenge(deps, otp({ appName }));
    const mail = smtp.received[0];
    expect(mail.subject).toBe(`482915 is your ${appName} verification code`);
    expect(mail.text).toContain(appName);
    expect(htmlOf(mail)).toContain('Ada &amp; &lt;Bob&#39;s&gt; &quot;Shop&quot;');
    expect(htmlOf(mail)).not.toContain('<Bob');
  });

  it('keeps a line break in the app name out of the subject header', async () => {
    await deliverChallenge(deps, otp({ appName: 'Acme\r\nBcc: victim@example.com' }));
    const mail = smtp.received[0];
    expect(mail.subject).toBe('482915 is your Acme Bcc: victim@example.com verification code');
    expect(mail.headers.has('bcc')).toBe(false);
  });

  it('writes German when challengeMetadata.language is "de" (or a German locale)', async () => {
    await deliverChallenge(deps, otp({ metadata: { language: 'de-AT' } }));
    const mail = smtp.received[0];
    expect(mail.subject).toBe('482915 ist Ihr Bestätigungscode für Acme Shop');
    expect(mail.text).toContain('Mit diesem Code bestätigen Sie Ihre E-Mail-Adresse bei Acme Shop:');
    expect(mail.text).toContain('Der Code ist 5 Minuten lang gültig.');
    expect(htmlOf(mail)).toContain('Der Code ist 5 Minuten lang gültig.');
  });

  it('falls back to English for a language it does not have', async () => {
    await deliverChallenge(deps, otp({ metadata: { language: 'fr' } }));
    expect(smtp.received[0].subject).toBe('482915 is your Acme Shop verification code');
  });
});

describe('email_link', () => {
  const token = 'q0Zk3v9yYc2m8gXb1QW5r7tLh4nPz6aJ-eUo_sdKfVA';
  const link = (over: Partial<DeliverChallengeInput> = {}) =>
    otp({ type: 'email_link', value: token, expiresAt: inMinutes(15), ...over });
  const linkIn = (text: string | undefined) => new URL(/https?:\/\/\S+/.exec(text ?? '')![0]);

  it("builds the link from challengeMetadata.linkUrl, keeping its query and fragment", async () => {
    await deliverChallenge(deps, link({ metadata: { linkUrl: 'https://shop.example.com/verify?from=signup#done' }, emailLinkUrl: 'https://other.example.com/x' }));
    const mail = smtp.received[0];
    expect(mail.subject).toBe('Your Acme Shop sign-in link');
    const url = linkIn(mail.text);
    expect(url.origin + url.pathname).toBe('https://shop.example.com/verify');
    expect(url.searchParams.get('from')).toBe('signup');
    expect(url.searchParams.get('challengeID')).toBe('cha-11111111111111111111');
    expect(url.searchParams.get('token')).toBe(token);
    expect(url.hash).toBe('#done');
    expect(mail.text).toContain('The link expires in 15 minutes and works once.');
    // In HTML the same link, with & escaped inside the attribute.
    const href = url.toString().replace(/&/g, '&amp;');
    expect(htmlOf(mail)).toContain(`href="${href}"`);
    expect(htmlOf(mail)).toContain('Continue to Acme Shop');
  });

  it("uses the project's email link URL when the challenge names none", async () => {
    await deliverChallenge(deps, link({ emailLinkUrl: 'https://shop.example.com/magic' }));
    const url = linkIn(smtp.received[0].text);
    expect(url.toString()).toBe(`https://shop.example.com/magic?challengeID=cha-11111111111111111111&token=${token}`);
  });

  it('phrases long lifetimes in hours, in German too', async () => {
    await deliverChallenge(deps, link({ emailLinkUrl: 'https://shop.example.com/magic', expiresAt: inMinutes(24 * 60), metadata: { language: 'de' } }));
    const mail = smtp.received[0];
    expect(mail.subject).toBe('Ihr Anmeldelink für Acme Shop');
    expect(mail.text).toContain('Der Link ist 24 Stunden lang gültig und funktioniert einmal.');
    expect(htmlOf(mail)).toContain('Weiter zu Acme Shop');
  });

  it('fails with invalid_argument before sending anything when there is no link URL', async () => {
    const err = await deliverChallenge(deps, link()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ kind: 'invalid_argument', type: 'email_link_url_missing' });
    expect((err as DomainError).message).toContain('challengeMetadata.linkUrl');
    expect((err as DomainError).validation).toEqual([{ field: 'challengeMetadata.linkUrl', message: 'required when the project has no email link URL' }]);
    expect(() => checkDeliverable(deps, { type: 'email_link', emailLinkUrl: '' })).toThrow(DomainError);
    expect(smtp.received).toHaveLength(0);
  });

  it('refuses a link URL that is not http(s)', async () => {
    const err = await deliverChallenge(deps, link({ metadata: { linkUrl: 'javascript:alert(1)' } })).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'invalid_argument', type: 'email_link_url_invalid' });
    expect(smtp.received).toHaveLength(0);
  });
});

describe('retries and failures', () => {
  it('retries after a refused message and succeeds on the second attempt', async () => {
    smtp.refuseNext = 1;
    const receipt = await deliverChallenge(deps, otp());
    expect(receipt).toEqual({ channel: 'email', attempts: 2 });
    expect(smtp.refused).toBe(1);
    expect(smtp.received).toHaveLength(1);
    expect(sleeps).toEqual([250]);
    const warn = log.lines.map((l) => JSON.parse(l)).find((l) => l.level === 40);
    expect(warn).toMatchObject({ challengeId: 'cha-11111111111111111111', type: 'email_otp', channel: 'email', attempt: 1, of: 3 });
    expect(warn.error).toContain('451');
  });

  it('gives up after three attempts with unavailable delivery_failed, and logs neither the code nor the address', async () => {
    smtp.refuseNext = 3;
    const err = await deliverChallenge(deps, otp()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ kind: 'unavailable', type: 'delivery_failed' });
    expect((err as DomainError).message).toBe('could not deliver the email_otp challenge by email: the email (SMTP) provider failed 3 times; try again later');
    expect(smtp.refused).toBe(3);
    expect(smtp.received).toHaveLength(0);
    expect(sleeps).toEqual([250, 1000]);

    const entries = log.lines.map((l) => JSON.parse(l));
    expect(entries.map((e) => [e.level, e.attempt])).toEqual([
      [40, 1],
      [40, 2],
      [50, 3],
    ]);
    for (const e of entries) {
      expect(Object.keys(e).sort()).toEqual(['attempt', 'challengeId', 'channel', 'error', 'hostname', 'level', 'msg', 'of', 'pid', 'time', 'type']);
    }
    const all = log.lines.join('\n') + String((err as Error).cause);
    expect(all).not.toContain('482915');
    expect(all).not.toContain('ada@example.com');
  });

  it('uses the default backoff when none is given', async () => {
    smtp.refuseNext = 1;
    const started = Date.now();
    await deliverChallenge({ email: sender, logger: log.logger }, otp());
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
  });

  it('reports an unreachable SMTP server as delivery_failed', async () => {
    const closed = smtpEmailSender('smtp://127.0.0.1:1', 'no-reply@localhost', { timeoutMs: 1000 });
    const err = await deliverChallenge({ ...deps, email: closed }, otp()).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'unavailable', type: 'delivery_failed' });
    expect(String((err as Error).cause)).toContain('ECONNREFUSED');
    closed.close();
  });

  it('gives up on an SMTP server that accepts the connection but never greets, within the time limit', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const stalled = smtpEmailSender(`smtp://127.0.0.1:${(silent.address() as AddressInfo).port}`, 'no-reply@localhost', { timeoutMs: 300 });
    const started = Date.now();
    const err = await deliverChallenge({ ...deps, email: stalled, retryDelaysMs: [] }, otp()).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(err).toMatchObject({ kind: 'unavailable', type: 'delivery_failed' });
    expect(String((err as Error).cause)).toMatch(/greeting|timeout/i);
    stalled.close();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('fails with failed_precondition when no email sender is configured', async () => {
    const err = await deliverChallenge({ logger: log.logger }, otp()).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'failed_precondition', type: 'delivery_not_configured' });
    expect((err as Error).message).toContain('SMTP_URL');
  });
});

describe('sendNotification', () => {
  const details = { passkeyName: 'iCloud Keychain', device: 'Safari 17 on macOS', addedAt: new Date('2030-01-01T12:00:00Z') };

  it('emails that a passkey was added, with what, where and when', async () => {
    const result = await sendNotification(deps, { email: 'ada@example.com', kind: 'passkey_added', details, appName: 'Acme Shop' });
    expect(result).toEqual({ attempts: 1 });
    const mail = smtp.received[0];
    expect(toOf(mail)).toBe('ada@example.com');
    expect(mail.subject).toBe('A passkey was added to your Acme Shop account');
    expect(mail.text).toContain('A new passkey was just added to your Acme Shop account.');
    expect(mail.text).toContain('Passkey: iCloud Keychain');
    expect(mail.text).toContain('Device: Safari 17 on macOS');
    expect(mail.text).toContain('Added: Jan 1, 2030, 12:00 PM UTC');
    expect(mail.text).toContain('remove the passkey');
    expect(htmlOf(mail)).toContain('<td style="padding:2px 0">iCloud Keychain</td>');
  });

  it('writes German, escapes HTML in details, and leaves out details it does not have', async () => {
    await sendNotification(deps, {
      email: 'ada@example.com',
      kind: 'passkey_added',
      details: { passkeyName: '<b>Key</b>' },
      appName: 'Acme',
      language: 'de',
    });
    const mail = smtp.received[0];
    expect(mail.subject).toBe('Neuer Passkey für Ihr Acme-Konto');
    expect(mail.text).toContain('Passkey: <b>Key</b>');
    expect(mail.text).not.toContain('Gerät');
    expect(htmlOf(mail)).toContain('&lt;b&gt;Key&lt;/b&gt;');
  });

  it('rejects a recipient that is not an email address and an unknown kind', async () => {
    await expect(sendNotification(deps, { email: 'not-an-address', kind: 'passkey_added', details: {}, appName: 'A' })).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    await expect(sendNotification(deps, { email: 'a@example.com', kind: 'other' as 'passkey_added', details: {}, appName: 'A' })).rejects.toMatchObject({
      kind: 'invalid_argument',
    });
    expect(smtp.received).toHaveLength(0);
  });

  it('retries and then reports delivery_failed naming the notification', async () => {
    smtp.refuseNext = 3;
    const err = await sendNotification(deps, { email: 'ada@example.com', kind: 'passkey_added', details, appName: 'Acme' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'unavailable', type: 'delivery_failed' });
    expect((err as Error).message).toContain('the passkey_added notification by email');
    expect(log.lines.join('\n')).not.toContain('ada@example.com');
  });
});
