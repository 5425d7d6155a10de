/** The parts of a user agent string the rules use, parsed with ua-parser-js (plus its in-app extension). */
import { UAParser } from 'ua-parser-js';
import { InApps } from 'ua-parser-js/extensions';

export interface ParsedUserAgent {
  userAgent: string;
  browserName: string;
  browserVersion: string;
  /** ua-parser-js' browser type: "inapp" for in-app browsers and Android/Edge web views, else "". */
  browserType: string;
  osName: string;
  osVersion: string;
}

/** One parser, built once: merging the extension's regexes is the costly part. setUA + getResult is synchronous. */
const parser = new UAParser(InApps);

export function parseUserAgent(userAgent: string): ParsedUserAgent {
  const result = parser.setUA(userAgent).getResult();
  return {
    userAgent,
    browserName: result.browser.name ?? '',
    browserVersion: result.browser.version ?? '',
    browserType: result.browser.type ?? '',
    osName: result.os.name ?? '',
    osVersion: result.os.version ?? '',
  };
}

export type OsFamily = 'apple' | 'android' | 'windows' | 'chromeos' | 'linux' | 'other';

/**
 * Platforms that share synced passkeys. iCloud Keychain syncs between iOS, iPadOS and macOS, so they
 * form one family; names come from ua-parser-js or from parsedDeviceInfo, hence the loose matching.
 */
export function osFamilyOf(osName: string | undefined): OsFamily {
  const name = (osName ?? '').trim().toLowerCase();
  if (!name) return 'other';
  if (/^(ios|ipados|macos|mac os|os x|mac os x|watchos|visionos)\b/.test(name)) return 'apple';
  if (name.startsWith('android')) return 'android';
  if (name.startsWith('windows')) return 'windows';
  if (/^(chrome os|chromium os|chromeos)/.test(name)) return 'chromeos';
  if (/^(linux|ubuntu|debian|fedora|arch|mint|red hat|suse|gentoo|centos)/.test(name)) return 'linux';
  return 'other';
}
