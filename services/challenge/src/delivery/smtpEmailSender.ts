/** EmailSender over SMTP with nodemailer. */
import nodemailer from 'nodemailer';
import type { EmailSender } from '../domain/delivery/ports.js';

export interface SmtpEmailSenderOptions {
  /**
   * Limit for connecting, for the server's greeting and for each socket read. Without it a mail
   * server that accepts the connection and then stalls would hold the RPC for nodemailer's
   * 10-minute socket default.
   */
  timeoutMs?: number;
}

export interface SmtpEmailSender extends EmailSender {
  /** Closes pooled connections (only open when SMTP_URL asks for `?pool=true`). */
  close(): void;
}

/**
 * Sends through the SMTP server of `smtpUrl` (`smtp://user:pass@host:587`, `smtps://…:465`;
 * nodemailer's URL options such as `?pool=true` apply) with the given From header
 * (`"Name <address>"` or an address).
 */
export function smtpEmailSender(smtpUrl: string, from: string, options: SmtpEmailSenderOptions = {}): SmtpEmailSender {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs * 2,
    // nodemailer logs nothing by default; say so explicitly, its debug output would contain the message.
    logger: false,
    debug: false,
  });
  return {
    async send(message) {
      await transport.sendMail({
        from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        // Messages never reference local files or remote URLs as content; refuse both as hardening.
        disableFileAccess: true,
        disableUrlAccess: true,
      });
    },
    close: () => transport.close(),
  };
}
