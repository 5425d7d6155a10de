/**
 * The shape every message language provides. A catalog returns structured content (plain
 * strings, never markup); renderEmail turns it into text and HTML and does all HTML escaping in
 * one place, so no template can forget to escape the app name or a passkey name.
 */

export interface EmailContent {
  subject: string;
  /** First paragraph. */
  intro: string;
  /** A one-time code, shown large. */
  code?: string;
  /** A call-to-action link; its URL is also printed in full for clients that hide buttons. */
  link?: { url: string; label: string };
  /** Label/value pairs, e.g. which passkey was added and when. */
  facts?: Array<[label: string, value: string]>;
  /** Closing paragraphs. */
  outro: string[];
  /** The line under the message saying who sent it. */
  footer: string;
}

/** How long something stays valid, already phrased for the language ("5 minutes"). */
export type Lifetime = string;

export interface PasskeyAddedFacts {
  passkeyName?: string;
  device?: string;
  /** Already formatted for the language. */
  addedAt?: string;
}

export interface MessageCatalog {
  /** "5 minutes", "2 hours". */
  lifetime(seconds: number): Lifetime;
  /** A date and time in UTC, e.g. "Jan 1, 2030, 12:00 AM UTC". */
  dateTime(date: Date): string;
  emailOtp(p: { appName: string; code: string; lifetime: Lifetime }): EmailContent;
  emailLink(p: { appName: string; url: string; lifetime: Lifetime }): EmailContent;
  smsOtp(p: { appName: string; code: string; lifetime: Lifetime }): string;
  passkeyAdded(p: { appName: string; facts: PasskeyAddedFacts }): EmailContent;
}

/** The label/value pairs whose value is known, in the given order. */
export function knownFacts(pairs: Array<[label: string, value: string | undefined]>): Array<[string, string]> {
  return pairs.filter((pair): pair is [string, string] => pair[1] !== undefined && pair[1] !== '');
}

/** Lifetimes under two hours read best in minutes, longer ones in hours (email links last up to a day). */
export function splitLifetime(seconds: number): { unit: 'minute' | 'hour'; count: number } {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  if (minutes < 120) return { unit: 'minute', count: minutes };
  return { unit: 'hour', count: Math.ceil(minutes / 60) };
}

/**
 * Dates in UTC: the service does not know the recipient's time zone, and UTC says so plainly.
 * Some ICU versions put narrow no-break spaces into formatted times; plain spaces read the same
 * everywhere, including in plain-text mail clients.
 */
export function formatUtc(date: Date, locale: string): string {
  const formatted = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' }).format(date);
  return `${formatted.replace(/[\u00a0\u202f]/g, ' ')} UTC`;
}
