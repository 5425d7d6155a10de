/** The signup-init block, with its fields as the interface names them (blockTypes.ts). */
import { SOCIAL_DATA, type Block, type RequestError } from './blockTypes.js';

export function buildSignupInitBlock(input: { identifiers: { type: string; identifier: string; error?: RequestError }[]; fullName?: string; fullNameError?: RequestError; error?: RequestError }): Block {
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
