/**
 * The rules of one-time challenges that do not depend on storage: lifetimes, value formats and
 * which identifier each type verifies.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { invalidArgument } from '../../../runtime/errors.js';
import type { ChallengeType } from '../store/challenges.js';

/** Lifetime defaults and bounds in seconds, per type (documented in docs/api/challenges.md, "Lifetimes and challengeMetadata"). */
export const LIFETIMES: Record<ChallengeType, { default: number; min: number; max: number }> = {
  email_otp: { default: 300, min: 60, max: 3600 },
  sms_otp: { default: 300, min: 60, max: 3600 },
  email_link: { default: 900, min: 60, max: 86_400 },
};

/** Upper bound of challengeMetadata, serialized as JSON. */
export const MAX_METADATA_BYTES = 4096;

export function lifetimeFor(type: ChallengeType, requested: number | undefined): number {
  const bounds = LIFETIMES[type];
  if (requested === undefined) return bounds.default;
  if (!Number.isInteger(requested) || requested < bounds.min || requested > bounds.max) {
    throw invalidArgument('validation_error', `lifetimeSeconds must be between ${bounds.min} and ${bounds.max} for ${type}, got ${requested}`, [
      { field: 'lifetimeSeconds', message: `must be between ${bounds.min} and ${bounds.max} for ${type}` },
    ]);
  }
  return requested;
}

/** A fresh secret: six digits for OTPs, 32 random bytes (256 bits, base64url) for email links. */
export function newChallengeValue(type: ChallengeType): string {
  if (type === 'email_link') return randomBytes(32).toString('base64url');
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}\.[^\s@]{1,63}$/;
const E164 = /^\+[1-9][0-9]{6,14}$/;

/** Normalizes the identifier a challenge verifies; an email for email types, an E.164 number for SMS. */
export function normalizeIdentifier(type: ChallengeType, value: string): string {
  const trimmed = value.trim();
  if (type === 'sms_otp') {
    const phone = trimmed.replace(/[\s()-]/g, '');
    if (!E164.test(phone)) {
      throw invalidArgument('validation_error', 'identifierValue must be a phone number in E.164 format (e.g. +4915112345678) for sms_otp', [
        { field: 'identifierValue', message: 'must be an E.164 phone number for sms_otp' },
      ]);
    }
    return phone;
  }
  if (!EMAIL.test(trimmed)) {
    throw invalidArgument('validation_error', `identifierValue must be an email address for ${type}`, [
      { field: 'identifierValue', message: `must be an email address for ${type}` },
    ]);
  }
  return trimmed.toLowerCase();
}

export function checkMetadataSize(metadata: unknown): void {
  if (metadata === undefined) return;
  const size = Buffer.byteLength(JSON.stringify(metadata));
  if (size > MAX_METADATA_BYTES) {
    throw invalidArgument('validation_error', `challengeMetadata is ${size} bytes as JSON; at most ${MAX_METADATA_BYTES} are allowed`, [
      { field: 'challengeMetadata', message: `must be at most ${MAX_METADATA_BYTES} bytes as JSON` },
    ]);
  }
}
