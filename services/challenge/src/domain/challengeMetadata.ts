/**
 * challengeMetadata: per-challenge extras. Two keys have a meaning here, because delivery uses them:
 *   linkUrl   (email_link only) the page the emailed link opens; must be on one of the project's origins,
 *             so a link in a message sent in the project's name cannot lead somewhere else;
 *   language  the language of the message, "en" or "en-US" style.
 * Any other key is kept as given (opaque to this service), within the size limit of challengeRules.
 */
import { invalidArgument } from '../../../runtime/errors.js';
import type { ChallengeType } from '../store/challenges.js';

const LANGUAGE = /^[a-z]{2}(-[A-Z]{2})?$/;

function badField(key: string, message: string) {
  const field = `challengeMetadata.${key}`;
  return invalidArgument('validation_error', `${field} ${message}`, [{ field, message }]);
}

/**
 * Checks the keys this service understands and returns the metadata to store (linkUrl in its
 * normalized form). `originsOf` is asked only when an email link names a linkUrl.
 */
export async function checkChallengeMetadata(
  type: ChallengeType,
  metadata: Record<string, unknown>,
  originsOf: () => Promise<string[]>,
): Promise<Record<string, unknown>> {
  const out = { ...metadata };
  if ('language' in metadata) {
    const language = metadata.language;
    if (typeof language !== 'string' || !LANGUAGE.test(language)) {
      throw badField('language', `must be a language tag like "en" or "en-US", got ${JSON.stringify(language)}`);
    }
  }
  if ('linkUrl' in metadata) {
    // Only an email link opens a page; on an OTP a linkUrl would be a caller's mistake, not an extra.
    if (type !== 'email_link') throw badField('linkUrl', `is only allowed for email_link challenges, not ${type}`);
    const raw = metadata.linkUrl;
    if (typeof raw !== 'string') throw badField('linkUrl', `must be a string, got ${raw === null ? 'null' : typeof raw}`);
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw badField('linkUrl', 'must be an absolute URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw badField('linkUrl', `must be an http(s) URL, got ${url.protocol}`);
    // user:password@ would make a link that shows one host but is easy to misread.
    if (url.username || url.password) throw badField('linkUrl', 'must not contain credentials');
    const origins = await originsOf();
    if (!origins.includes(url.origin)) {
      throw badField('linkUrl', `must be on one of the project's origins (${origins.join(', ') || 'none configured'}), got ${url.origin}`);
    }
    out.linkUrl = url.toString();
  }
  return out;
}
