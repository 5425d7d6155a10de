/**
 * A webhook receiver on loopback, as an application runs one: it verifies every delivery with the
 * `standardwebhooks` package (once the signing secret is known) and records it with the time it
 * arrived, answering 200 (or a status queued in `answers`).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  id: string;
  type: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The verified payload; null when no secret was set or the signature did not verify. */
  payload: { type: string; timestamp: string; data: Record<string, unknown> } | null;
  /** Date.now() when the body had arrived. */
  receivedAt: number;
  answered: number;
}

export class VerifyingWebhookReceiver {
  received: ReceivedWebhook[] = [];
  answers: number[] = [];
  /** Deliveries whose signature did not verify (with a secret set). */
  unverified = 0;
  /** Why the first of them did not verify. */
  firstUnverified: string | null = null;
  url = '';
  private server: Server | null = null;
  private verifier: Webhook | null = null;

  /** The endpoint's signing secret (whsec_…), from the create's answer. */
  set secret(secret: string) {
    this.verifier = new Webhook(secret);
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const receivedAt = Date.now();
        const body = Buffer.concat(chunks).toString('utf8');
        let payload: ReceivedWebhook['payload'] = null;
        if (this.verifier) {
          try {
            payload = this.verifier.verify(body, req.headers as Record<string, string>) as ReceivedWebhook['payload'];
          } catch (err) {
            this.unverified += 1;
            this.firstUnverified ??= `${(err as Error).message} (${String(req.headers['x-corbado-webhook-event'])} ${String(req.headers['webhook-id'])}, timestamp ${String(req.headers['webhook-timestamp'])}, received ${receivedAt})`;
          }
        }
        const answered = this.answers.shift() ?? 200;
        this.received.push({ id: String(req.headers['webhook-id']), type: String(req.headers['x-corbado-webhook-event']), headers: req.headers, body, payload, receivedAt, answered });
        res.writeHead(answered).end();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  async waitFor(predicate: () => boolean, timeoutMs = 20_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > end) throw new Error(`timed out; received: ${JSON.stringify(this.received.map((r) => [r.type, r.id, r.answered]))}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  stop(): Promise<void> {
    return new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
