import { invalidArgument } from '../../../../runtime/errors.js';

/**
 * The base URL an email link points to: the challenge's `linkUrl` metadata if it has one, else the
 * project's configured emailLinkUrl. Throws invalid_argument when there is neither or it is not an
 * http(s) URL, so a link challenge fails before anything is stored or sent. (Whether the URL is one
 * of the project's origins is checked where the challenge is created.)
 */
export function emailLinkBase(metadataLinkUrl: unknown, projectEmailLinkUrl: string): URL {
  const fromMetadata = typeof metadataLinkUrl === 'string' && metadataLinkUrl.trim() !== '';
  const raw = fromMetadata ? (metadataLinkUrl as string).trim() : projectEmailLinkUrl.trim();
  if (!raw) {
    throw invalidArgument(
      'email_link_url_missing',
      'an email_link challenge needs a URL for the link: pass challengeMetadata.linkUrl or configure the project\'s email link URL',
      [{ field: 'challengeMetadata.linkUrl', message: 'required when the project has no email link URL' }],
    );
  }
  const url = URL.canParse(raw) ? new URL(raw) : null;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    const source = fromMetadata ? 'challengeMetadata.linkUrl' : "the project's email link URL";
    throw invalidArgument('email_link_url_invalid', `${source} must be an absolute http(s) URL, got "${raw.slice(0, 200)}"`, [
      { field: 'challengeMetadata.linkUrl', message: 'must be an absolute http(s) URL' },
    ]);
  }
  return url;
}

/**
 * The link sent by email: the base URL with `challengeID` and `token` query parameters added
 * (existing parameters and the fragment are kept), which the app's page sends back to verify.
 */
export function buildEmailLink(base: URL, challengeId: string, token: string): string {
  const url = new URL(base);
  url.searchParams.set('challengeID', challengeId);
  url.searchParams.set('token', token);
  return url.toString();
}
