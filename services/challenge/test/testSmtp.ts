/** A real SMTP server for tests: parses what it receives, and can refuse messages with a 451. */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export class TestSmtp {
  readonly received: ParsedMail[] = [];
  /** While set, every message is refused. */
  refuse = false;
  /** Messages refused before it accepts again. */
  refuseNext = 0;
  refused = 0;
  private server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData: (stream, _session, callback) => {
      if (this.refuse || this.refuseNext > 0) {
        if (this.refuseNext > 0) this.refuseNext--;
        this.refused++;
        // The whole message is read before answering, as a real server does.
        stream.resume();
        stream.on('end', () => callback(Object.assign(new Error('mailbox temporarily unavailable'), { responseCode: 451 })));
        return;
      }
      simpleParser(stream).then(
        (mail) => {
          this.received.push(mail);
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = (this.server as unknown as { server: { address(): AddressInfo } }).server.address();
    this.url = `smtp://127.0.0.1:${port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(resolve));
  }
}

/** The first recipient's address of a received message. */
export const toOf = (mail: ParsedMail) => (Array.isArray(mail.to) ? mail.to[0] : mail.to)?.value[0]?.address;
/** The HTML part of a received message ("" when there is none). */
export const htmlOf = (mail: ParsedMail) => (typeof mail.html === 'string' ? mail.html : '');
