/**
 * The fixed rules of WebAuthn ceremonies in this service (documented in docs/api/passkeys-and-insights.md, "Ceremony rules").
 */
import { randomBytes } from 'node:crypto';
import type { CeremonyType } from './deps.js';
import type { CrossDeviceStrategy } from './insights/types.js';

/**
 * How long the browser may take (options.timeout) and how long a started ceremony can be finished:
 * five minutes, the WebAuthn recommendation for ceremonies that require user verification.
 */
export const CEREMONY_TIMEOUT_MS = 300_000;
export const SESSION_LIFETIME_MS = CEREMONY_TIMEOUT_MS;

/**
 * COSE algorithms offered in pubKeyCredParams, in order of preference, and accepted at the finish:
 * ES256, ES384, ES512, RS256, RS384, RS512, PS256, PS384, PS512, EdDSA (the reference's list).
 */
export const SUPPORTED_ALGORITHMS = [-7, -35, -36, -257, -258, -259, -37, -38, -39, -8];

/**
 * Attestation "none": the service does not check authenticator models against a trust list, so
 * asking for attestation would only add a privacy prompt. Formats the client sends anyway are
 * still verified (packed, fido-u2f, tpm, android-key, apple, …).
 */
export const ATTESTATION = 'none' as const;

/** Transports of the WebAuthn spec; others reported by clients are dropped. */
export const KNOWN_TRANSPORTS = ['usb', 'nfc', 'ble', 'internal', 'hybrid', 'smart-card'];

/** A fresh challenge: 32 random bytes (the spec asks for at least 16), base64url. */
export function newChallenge(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * How the ceremony ran: a cross-platform authenticator reached over hybrid is a cross-device
 * ceremony ("cda"); a cross-platform one without hybrid is a roaming security key (USB, NFC, BLE);
 * everything else (platform authenticator, password manager on this device) is "local".
 * `transports` are the ones the registration reported (append) or that are stored (login).
 */
export function ceremonyTypeOf(attachment: string | null, transports: readonly string[]): CeremonyType {
  if (attachment !== 'cross-platform') return 'local';
  return transports.includes('hybrid') ? 'cda' : 'security-key';
}

/**
 * The transports offered for one credential in allowCredentials:
 * - standard: as stored;
 * - minimize: without "hybrid", so the browser prefers authenticators on this device;
 * - maximize: with "hybrid" added, so the browser offers the cross-device (QR code) option.
 * A credential with no stored transports keeps none: browsers then offer every way, hybrid included.
 */
export function offeredTransports(stored: readonly string[], strategy: CrossDeviceStrategy): string[] {
  if (stored.length === 0) return [];
  if (strategy === 'minimize') return stored.filter((t) => t !== 'hybrid');
  if (strategy === 'maximize') return stored.includes('hybrid') ? [...stored] : [...stored, 'hybrid'];
  return [...stored];
}

/** WebAuthn hints matching the strategy (browsers that know hints order their choices by them). */
export function hintsFor(strategy: CrossDeviceStrategy): string[] {
  if (strategy === 'minimize') return ['client-device'];
  if (strategy === 'maximize') return ['hybrid'];
  return [];
}
