/**
 * The local mail catcher (maildev, as `npm start` runs it: deploy/local/processes.ts
 * mailCatcherProcess) on free ports with a temporary mail directory, and a reader of one-time codes
 * through its REST API (GET /email), as a person would read them in the inbox.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mailCatcherProcess } from '../../deploy/local/processes.js';
import { Supervisor } from '../../deploy/local/supervisor.js';
import { freePort } from '../kit/startStack.js';

/** A message as maildev's GET /email lists it (the fields used here). */
export interface CaughtMail {
  id: string;
  subject: string;
  text?: string;
  html?: string;
  to: { address: string; name?: string }[];
  date: string;
}

export interface MailCatcher {
  /** smtp://127.0.0.1:<port>, for the challenge service's SMTP_URL. */
  smtpUrl: string;
  /** http://127.0.0.1:<port>, the web inbox (its REST API at /email). */
  webUrl: string;
  logs: string[];
  /** Every message in the inbox. */
  mails(): Promise<CaughtMail[]>;
  /**
   * The six-digit code of the first verification mail to `address` that `seen` did not have yet
   * (polls for up to `timeoutMs`); the mail is added to `seen`.
   */
  codeFor(address: string, seen: Set<string>, timeoutMs?: number): Promise<string>;
  /** IDs of every message so far (to pass as `seen` before an action that sends a code). */
  seen(): Promise<Set<string>>;
  stop(): Promise<void>;
}

export async function startMailCatcher(): Promise<MailCatcher> {
  const ports = { smtp: await freePort(), web: await freePort() };
  const dir = mkdtempSync(join(tmpdir(), 'maildev-'));
  const logs: string[] = [];
  const supervisor = new Supervisor((line) => logs.push(line));
  try {
    await supervisor.start(mailCatcherProcess(ports, dir), 30_000);
  } catch (err) {
    await supervisor.stop();
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`maildev did not start: ${(err as Error).message}\n${logs.join('\n')}`, { cause: err });
  }
  const webUrl = `http://127.0.0.1:${ports.web}`;
  const mails = async () => {
    const res = await fetch(`${webUrl}/email`);
    if (res.status !== 200) throw new Error(`maildev GET /email → ${res.status}`);
    return (await res.json()) as CaughtMail[];
  };
  return {
    smtpUrl: `smtp://127.0.0.1:${ports.smtp}`,
    webUrl,
    logs,
    mails,
    async seen() {
      return new Set((await mails()).map((m) => m.id));
    },
    async codeFor(address, seen, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      const want = address.toLowerCase();
      for (;;) {
        const all = await mails();
        for (const m of all) {
          if (seen.has(m.id) || !m.to.some((t) => t.address.toLowerCase() === want)) continue;
          const code = `${m.subject}\n${m.text ?? ''}`.match(/\b([0-9]{6})\b/)?.[1];
          if (!code) continue; // e.g. "A passkey was added to your account"
          seen.add(m.id);
          return code;
        }
        if (Date.now() > deadline) {
          const list = all.map((m) => `${m.to.map((t) => t.address).join(',')}: ${m.subject}`).join('\n');
          throw new Error(`no new code mailed to ${address} within ${timeoutMs} ms; inbox:\n${list}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop() {
      await supervisor.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
