/**
 * The signup-init block, with its fields as the interface names them (blockTypes.ts). It lists every
 * identifier the sign-up asks for (listSignupIdentifiers.ts): those the user sent, with their
 * errors, then the others empty, since the web SDK shows a form field only for a listed one.
 */
import { SOCIAL_DATA, type Block, type RequestError } from './blockTypes.js';
import { listSignupIdentifiers } from './listSignupIdentifiers.js';

export function buildSignupInitBlock(input: { identifiers: { type: string; identifier: string; error?: RequestError }[]; fullName?: string; fullNameError?: RequestError; error?: RequestError }): Block {
  const sent = new Set(input.identifiers.map((i) => i.type));
  const identifiers: { type: string; identifier: string; error?: RequestError }[] = [...input.identifiers, ...listSignupIdentifiers().filter((t) => !sent.has(t)).map((type) => ({ type, identifier: '' }))];
  return {
    block: 'signup-init',
    authType: 'signup',
    data: {
      blockType: 'signup-init',
      identifiers: identifiers.map((i) => ({ type: i.type, identifier: i.identifier, ...(i.error ? { error: i.error } : {}) })),
      ...(input.fullName !== undefined || input.fullNameError ? { fullName: { fullName: input.fullName ?? '', ...(input.fullNameError ? { error: input.fullNameError } : {}) } } : {}),
      socialData: SOCIAL_DATA,
      ...(input.error ? { error: input.error } : {}),
    },
    alternatives: [],
    ...(input.error ? { error: input.error } : {}),
  };
}
