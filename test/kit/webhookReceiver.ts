/**
 * A webhook receiver on loopback for the end-to-end tests: records every request, answers the next
 * queued status (200 when none is queued), and verifies a delivery with the `standardwebhooks`
 * package as an application would.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  answered: number;
}

export class WebhookReceiver {
  received: ReceivedWebhook[] = [];
  answers: number[] = [];
  url = '';
  private server!: Server;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const answered = this.answers.shift() ?? 200;
        this.received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answered });
        res.writeHead(answered).end();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
    return this;
  }

  /** The requests of one event type (by the hosted service's header). */
  of(type: string): ReceivedWebhook[] {
    return this.received.filter((r) => r.headers['x-corbado-webhook-event'] === type);
  }

  async waitFor(predicate: () => boolean, timeoutMs = 20_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!predicate()) {
      if (Date.now() > end) throw new Error(`timed out; received: ${JSON.stringify(this.received.map((r) => [r.headers['x-corbado-webhook-event'], r.answered]))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The first delivery of `type` whose body contains `marker`, verified with `secret`: its payload. */
  async verifiedPayload(type: string, marker: string, secret: string): Promise<Record<string, any>> {
    await this.waitFor(() => this.of(type).some((r) => r.body.includes(marker)));
    return verifyWebhook(this.of(type).find((r) => r.body.includes(marker))!, secret);
  }

  stop(): Promise<void> {
    return new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Verifies a delivery as a receiver would (signature, and a timestamp within 5 minutes); answers the parsed payload. */
export function verifyWebhook(r: ReceivedWebhook, secret: string): Record<string, any> {
  const headers = { 'webhook-id': String(r.headers['webhook-id']), 'webhook-timestamp': String(r.headers['webhook-timestamp']), 'webhook-signature': String(r.headers['webhook-signature']) };
  return new Webhook(secret).verify(r.body, headers) as Record<string, any>;
}
