/** Turns structured EmailContent into the plain-text and HTML bodies of one message. */
import type { EmailMessage } from '../ports.js';
import type { EmailContent } from './catalog.js';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/**
 * A subject is a single header line: control characters (a newline in an app name) would break
 * it, so they become spaces.
 */
function headerText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

function renderText(c: EmailContent): string {
  const parts = [c.intro];
  if (c.code) parts.push(`    ${c.code}`);
  if (c.link) parts.push(c.link.url);
  if (c.facts?.length) parts.push(c.facts.map(([label, value]) => `${label}: ${value}`).join('\n'));
  parts.push(...c.outro, '--', c.footer);
  return `${parts.join('\n\n')}\n`;
}

// Inline styles only: most mail clients drop <style> blocks and external stylesheets.
const P = 'margin:0 0 16px;font:16px/1.5 -apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#1f2937';

function renderHtml(c: EmailContent): string {
  const body: string[] = [`<p style="${P}">${escapeHtml(c.intro)}</p>`];
  if (c.code) {
    body.push(
      `<p style="margin:0 0 16px;font:700 32px/1.2 ui-monospace,Menlo,Consolas,monospace;letter-spacing:6px;color:#111827">${escapeHtml(c.code)}</p>`,
    );
  }
  if (c.link) {
    const href = escapeHtml(c.link.url);
    body.push(
      `<p style="${P}"><a href="${href}" style="display:inline-block;padding:12px 20px;border-radius:6px;background:#1d4ed8;color:#ffffff;text-decoration:none;font-weight:600">${escapeHtml(c.link.label)}</a></p>`,
      `<p style="${P};font-size:13px;word-break:break-all"><a href="${href}" style="color:#1d4ed8">${href}</a></p>`,
    );
  }
  if (c.facts?.length) {
    const rows = c.facts
      .map(([label, value]) => `<tr><td style="padding:2px 16px 2px 0;color:#6b7280">${escapeHtml(label)}</td><td style="padding:2px 0">${escapeHtml(value)}</td></tr>`)
      .join('');
    body.push(`<table role="presentation" style="${P}">${rows}</table>`);
  }
  for (const paragraph of c.outro) body.push(`<p style="${P}">${escapeHtml(paragraph)}</p>`);
  body.push(`<p style="${P};font-size:13px;color:#6b7280">${escapeHtml(c.footer)}</p>`);
  return [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(headerText(c.subject))}</title></head>`,
    `<body style="margin:0;padding:24px;background:#f9fafb"><div style="max-width:560px;margin:0 auto;padding:24px;background:#ffffff;border-radius:8px">`,
    ...body,
    '</div></body></html>',
    '',
  ].join('\n');
}

export function renderEmail(to: string, content: EmailContent): EmailMessage {
  return { to, subject: headerText(content.subject), text: renderText(content), html: renderHtml(content) };
}
