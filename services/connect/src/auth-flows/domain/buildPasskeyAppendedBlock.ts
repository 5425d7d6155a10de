/** The passkey-appended block, with its fields as the interface names them (blockTypes.ts). */
import type { AuthType } from '../store/authProcesses.js';
import type { Block } from './blockTypes.js';

export function buildPasskeyAppendedBlock(authType: AuthType): Block {
  return { block: 'passkey-appended', authType, data: { blockType: 'passkey-appended' }, alternatives: [] };
}
