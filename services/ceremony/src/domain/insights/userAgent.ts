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

/**
 * Parsed results by user agent string. One request used to parse the same string about four
 * times (≈ 8 % of the ceremony process); and an application's users share a few hundred
 * browser builds, so most requests hit. Bounded: the oldest entry goes first.
 */
const parsed = new Map<string, ParsedUserAgent>();
const MAX_PARSED = 1000;

export function parseUserAgent(userAgent: string): ParsedUserAgent {
  const hit = parsed.get(userAgent);
  if (hit) return hit;
  const result = parser.setUA(userAgent).getResult();
  const value: ParsedUserAgent = Object.freeze({
    userAgent,
    browserName: result.browser.name ?? '',
    browserVersion: result.browser.version ?? '',
    browserType: result.browser.type ?? '',
    osName: result.os.name ?? '',
    osVersion: result.os.version ?? '',
  });
  if (parsed.size >= MAX_PARSED) parsed.delete(parsed.keys().next().value as string);
  parsed.set(userAgent, value);
  return value;
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
