/**
 * The completed block, with its fields as the interface names them (blockTypes.ts). The session is
 * under both names: shortSession/longSession (the reference, web-core 2.x) and
 * sessionToken/refreshToken (web-core 3.x reads only these).
 */
import type { AuthType } from '../store/authProcesses.js';
import type { Block, PasskeyOperation } from './blockTypes.js';

export function buildCompletedBlock(authType: AuthType, input: { shortSession: string; longSession: string; passkeyOperation?: PasskeyOperation }): Block {
  return {
    block: 'completed',
    authType,
    data: {
      blockType: 'completed',
      shortSession: input.shortSession,
      longSession: input.longSession,
      sessionToken: input.shortSession,
      refreshToken: input.longSession,
      ...(input.passkeyOperation ? { passkeyOperation: input.passkeyOperation } : {}) },
    alternatives: [],
  };
}
