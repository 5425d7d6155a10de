import { UAParser } from 'ua-parser-js';
import type { ClientContext } from './insights/types.js';

/**
 * The operating system and browser a passkey was created on, for the credential list: parsed from
 * the user agent (names only, e.g. "macOS" and "Chrome", so they compare across versions), else
 * what the application parsed itself (parsedDeviceInfo), else "".
 */
export function describeSourceDevice(client: ClientContext): { sourceOS: string; sourceBrowser: string } {
  const ua = UAParser(client.userAgent);
  return {
    sourceOS: ua.os.name ?? client.parsedDeviceInfo?.osName ?? '',
    sourceBrowser: ua.browser.name ?? client.parsedDeviceInfo?.browserName ?? '',
  };
}
