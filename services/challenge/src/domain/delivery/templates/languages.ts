/** Picks the message catalog for a requested language. */
import type { MessageCatalog } from './catalog.js';
import { de } from './de.js';
import { en } from './en.js';

const CATALOGS: Record<string, MessageCatalog> = { en, de };

export const SUPPORTED_LANGUAGES = Object.keys(CATALOGS);

/**
 * The catalog for a BCP 47 tag or Accept-Language style value ("de", "de-AT", "de_DE"); English
 * for anything unknown or absent, since an email in the default language beats no email.
 */
export function catalogFor(language: string | undefined): MessageCatalog {
  const primary = (language ?? '').trim().toLowerCase().split(/[-_,;]/)[0];
  return CATALOGS[primary] ?? en;
}
