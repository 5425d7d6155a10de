/** The passkey-verify block, with its fields as the interface names them (blockTypes.ts). */
import type { Block, RequestError } from './blockTypes.js';

export function buildPasskeyVerifyBlock(input: { assertionOptions: string; identifierValue: string; cda: boolean }, alternatives: Block[] = [], error?: RequestError): Block {
  return {
    block: 'passkey-verify',
    authType: 'login',
    data: { blockType: 'passkey-verify', challenge: input.assertionOptions, identifierValue: input.identifierValue, ...(input.cda ? { loginHint: 'cda' } : {}) },
    alternatives,
    ...(error ? { error } : {}),
  };
}
