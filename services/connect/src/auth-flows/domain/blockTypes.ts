/**
 * The blocks of the Block response (blockBody). Each builder returns the block exactly as the
 * interface names its fields; data is a free-form object on the wire, so these builders are the
 * one place its shape per blockType is written down (see the list in docs/api/signup-login-and-sessions.md, "Sign-up and login (frontend API)").
 */
import type { AuthType, BlockType, VerificationMethod } from '../store/authProcesses.js';

export interface RequestError {
  code: string;
  message: string;
}

export interface Block {
  block: BlockType;
  authType: AuthType;
  data: Record<string, unknown>;
  alternatives: Block[];
  error?: RequestError;
}

const SOCIAL_DATA = { providers: [], status: 'initial' };

export function signupInitBlock(input: { identifiers: { type: string; identifier: string; error?: RequestError }[]; fullName?: string; fullNameError?: RequestError; error?: RequestError }): Block {
  return {
    block: 'signup-init',
    authType: 'signup',
    data: {
      blockType: 'signup-init',
      identifiers: input.identifiers.map((i) => ({ type: i.type, identifier: i.identifier, ...(i.error ? { error: i.error } : {}) })),
      ...(input.fullName !== undefined || input.fullNameError ? { fullName: { fullName: input.fullName ?? '', ...(input.fullNameError ? { error: input.fullNameError } : {}) } } : {}),
      socialData: SOCIAL_DATA,
      ...(input.error ? { error: input.error } : {}),
    },
    alternatives: [],
    ...(input.error ? { error: input.error } : {}),
  };
}

export function loginInitBlock(input: { identifierValue: string; isPhone: boolean; conditionalUIChallenge?: string; fieldError?: RequestError }): Block {
  return {
    block: 'login-init',
    authType: 'login',
    data: {
      blockType: 'login-init',
      identifierValue: input.identifierValue,
      isPhone: input.isPhone,
      isPhoneAvailable: true,
      isEmailAvailable: true,
      isUsernameAvailable: true,
      socialData: SOCIAL_DATA,
      ...(input.conditionalUIChallenge ? { conditionalUIChallenge: input.conditionalUIChallenge } : {}),
      ...(input.fieldError ? { fieldError: input.fieldError } : {}),
    },
    alternatives: [],
    ...(input.fieldError ? { error: input.fieldError } : {}),
  };
}

export function passkeyAppendBlock(authType: AuthType, input: { attestationOptions: string; identifierValue: string; identifierType: string; variant?: string }, alternatives: Block[] = []): Block {
  return {
    block: 'passkey-append',
    authType,
    data: {
      blockType: 'passkey-append',
      challenge: input.attestationOptions,
      identifierValue: input.identifierValue,
      identifierType: input.identifierType,
      autoSubmit: false,
      passkeyIconSet: 'default',
      variant: input.variant ?? 'default',
    },
    alternatives,
  };
}

export function passkeyVerifyBlock(input: { assertionOptions: string; identifierValue: string; cda: boolean }, alternatives: Block[] = [], error?: RequestError): Block {
  return {
    block: 'passkey-verify',
    authType: 'login',
    data: { blockType: 'passkey-verify', challenge: input.assertionOptions, identifierValue: input.identifierValue, ...(input.cda ? { loginHint: 'cda' } : {}) },
    alternatives,
    ...(error ? { error } : {}),
  };
}

export function verifyBlock(authType: AuthType, input: { method: VerificationMethod; identifier: string; retryNotBefore?: number; error?: RequestError }): Block {
  const block: BlockType = input.method === 'phone-otp' ? 'phone-verify' : 'email-verify';
  return {
    block,
    authType,
    data: {
      blockType: block,
      verificationMethod: input.method,
      identifier: input.identifier,
      ...(input.retryNotBefore !== undefined ? { retryNotBefore: input.retryNotBefore } : {}),
      ...(input.error ? { error: input.error } : {}),
      alternativeVerificationMethods: [],
      isPostLoginVerification: false,
    },
    alternatives: [],
    ...(input.error ? { error: input.error } : {}),
  };
}

export function passkeyAppendedBlock(authType: AuthType): Block {
  return { block: 'passkey-appended', authType, data: { blockType: 'passkey-appended' }, alternatives: [] };
}

export function completedBlock(authType: AuthType, input: { shortSession: string; longSession: string; passkeyOperation?: Record<string, unknown> }): Block {
  return {
    block: 'completed',
    authType,
    data: { blockType: 'completed', shortSession: input.shortSession, longSession: input.longSession, ...(input.passkeyOperation ? { passkeyOperation: input.passkeyOperation } : {}) },
    alternatives: [],
  };
}
