/** The code verification a passkey block offers as its alternative (sendCode.ts sends the code when it is chosen). */
import type { AuthProcessRecord } from '../store/authProcesses.js';
import { buildVerifyBlock } from './buildVerifyBlock.js';
import type { Block } from './blockTypes.js';
import { pickDefaultMethod } from './processRules.js';

/** The block that offers a code instead (the alternative to a passkey block), if the identifier allows one. */
export function buildVerifyAlternative(process: Pick<AuthProcessRecord, 'identifier' | 'authType'>): Block[] {
  const method = pickDefaultMethod(process);
  return method && process.identifier ? [buildVerifyBlock(process.authType, { method, identifier: process.identifier.value })] : [];
}
