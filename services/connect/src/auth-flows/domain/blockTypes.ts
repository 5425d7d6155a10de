/**
 * The Block response (blockBody) and the data of each block type, as the interface names its fields
 * (the reference's generalBlock* schemas). The proto declares the same shapes, one message per
 * block type (passkeyauth.connect.v1.BlockBody's `data` oneof), which the handler maps these to
 * (handlers/blockMessage.ts); the builders, one per blockType (build*Block.ts), fill them in.
 * A field the interface leaves out when empty is optional here and set only when it has a value.
 */
import type { AuthType, BlockType } from '../store/authProcesses.js';

export interface RequestError {
  code: string;
  message: string;
}

/** The socialData of the init blocks: no social login providers are offered. */
export interface SocialData {
  providers: string[];
  status: string;
}

export interface SignupInitData {
  blockType: 'signup-init';
  identifiers: { type: string; identifier: string; error?: RequestError }[];
  fullName?: { fullName: string; error?: RequestError };
  socialData: SocialData;
  error?: RequestError;
}

export interface LoginInitData {
  blockType: 'login-init';
  identifierValue: string;
  isPhone: boolean;
  isPhoneAvailable: boolean;
  isEmailAvailable: boolean;
  isUsernameAvailable: boolean;
  socialData: SocialData;
  conditionalUIChallenge?: string;
  fieldError?: RequestError;
}

export interface PasskeyAppendData {
  blockType: 'passkey-append';
  challenge: string;
  identifierValue: string;
  identifierType: string;
  autoSubmit: boolean;
  passkeyIconSet: string;
  variant: string;
  error?: RequestError;
}

export interface PasskeyVerifyData {
  blockType: 'passkey-verify';
  challenge: string;
  identifierValue: string;
  loginHint?: 'cda';
}

export interface VerifyIdentifierData {
  blockType: 'email-verify' | 'phone-verify';
  verificationMethod: string;
  identifier: string;
  retryNotBefore?: number;
  error?: RequestError;
  alternativeVerificationMethods: { verificationMethod: string; identifier: string }[];
  isPostLoginVerification: boolean;
}

export interface PasskeyAppendedData {
  blockType: 'passkey-appended';
}

/** What the process did with a passkey, for passkeyOperation. */
export interface PasskeyOperation {
  operationType: 'append' | 'verify';
  identifierValue: string;
  identifierType: string;
  ceremonyType: string;
}

export interface CompletedData {
  blockType: 'completed';
  shortSession: string;
  longSession: string;
  sessionToken: string;
  refreshToken: string;
  passkeyOperation?: PasskeyOperation;
}

/** The data of a block, told apart by blockType (equal to the block's `block`). */
export type BlockData = SignupInitData | LoginInitData | PasskeyAppendData | PasskeyVerifyData | VerifyIdentifierData | PasskeyAppendedData | CompletedData;

export interface Block {
  block: BlockType;
  authType: AuthType;
  data: BlockData;
  alternatives: Block[];
  error?: RequestError;
  /** Set when the process went on elsewhere (another tab or device); the page stops following it. */
  continueOnOtherDevice?: { reason: 'email-link-verified' | 'process-already-completed' };
}

export const SOCIAL_DATA: SocialData = { providers: [], status: 'initial' };
