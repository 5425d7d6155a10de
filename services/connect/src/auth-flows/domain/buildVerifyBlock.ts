/** The email-verify or phone-verify block, with its fields as the interface names them (blockTypes.ts). */
import type { AuthType, BlockType, VerificationMethod } from '../store/authProcesses.js';
import type { Block, RequestError } from './blockTypes.js';

export function buildVerifyBlock(authType: AuthType, input: { method: VerificationMethod; identifier: string; retryNotBefore?: number; error?: RequestError }): Block {
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
