/** The passkey-append block, with its fields as the interface names them (blockTypes.ts). */
import type { AuthType } from '../store/authProcesses.js';
import type { Block } from './blockTypes.js';

export function buildPasskeyAppendBlock(authType: AuthType, input: { attestationOptions: string; identifierValue: string; identifierType: string; variant?: string }, alternatives: Block[] = []): Block {
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
