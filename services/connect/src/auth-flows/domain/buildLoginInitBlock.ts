/** The login-init block, with its fields as the interface names them (blockTypes.ts). */
import { SOCIAL_DATA, type Block, type RequestError } from './blockTypes.js';

export function buildLoginInitBlock(input: { identifierValue: string; isPhone: boolean; conditionalUIChallenge?: string; fieldError?: RequestError }): Block {
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
