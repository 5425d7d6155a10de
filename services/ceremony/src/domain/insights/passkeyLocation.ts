/** Where a stored passkey lives relative to the client asking: this environment, a synced platform, or elsewhere. */
import type { PasskeySummary } from './types.js';
import { osFamilyOf } from './userAgent.js';

const ALL_ZERO_AAGUID = '00000000-0000-0000-0000-000000000000';
const EXTERNAL_TRANSPORTS = new Set(['usb', 'nfc', 'ble']);

/**
 * A roaming hardware key: reachable only over USB, NFC or BLE and never synced (not backup
 * eligible). Without reported transports nothing can be said, so it is not treated as one.
 */
export function isSecurityKey(passkey: PasskeySummary): boolean {
  return !passkey.backupEligible && passkey.transports.length > 0 && passkey.transports.every((t) => EXTERNAL_TRANSPORTS.has(t.toLowerCase()));
}

/** Created in this client environment (and not on a security key, which may not be plugged in now). */
export function isFromThisEnv(passkey: PasskeySummary, envKey: string): boolean {
  return passkey.clientEnvKey === envKey && !isSecurityKey(passkey);
}

/**
 * Probably present here through sync: a backup-eligible passkey created on the same platform family
 * (iCloud Keychain between iPhone and Mac, Google Password Manager between Android devices).
 */
export function isLikelySyncedHere(passkey: PasskeySummary, currentOsName: string): boolean {
  if (!passkey.backupEligible || isSecurityKey(passkey)) return false;
  const here = osFamilyOf(currentOsName);
  return here !== 'other' && osFamilyOf(passkey.sourceOS) === here;
}

/** Distinct AAGUIDs (lower case, in the passkeys' order); the all-zero AAGUID names no provider. */
export function passwordManagerIdsOf(passkeys: PasskeySummary[]): string[] {
  const ids = new Set<string>();
  for (const passkey of passkeys) {
    const aaguid = (passkey.aaguid ?? '').trim().toLowerCase();
    if (aaguid && aaguid !== ALL_ZERO_AAGUID) ids.add(aaguid);
  }
  return [...ids];
}
