/**
 * The first blocks offer each other as their alternative: login-init carries signup-init ("sign up
 * instead") and signup-init carries login-init. The web SDK shows the switch only when the
 * alternative is there (LoginInitBlock.isSignupEnabled, SignupInitBlock.switchToLogin) and takes it
 * without a call; the process follows whichever init call the page then makes.
 */
import type { Block } from './blockTypes.js';
import { buildLoginInitBlock } from './buildLoginInitBlock.js';
import { buildSignupInitBlock } from './buildSignupInitBlock.js';

export function addFirstBlockSwitch(block: Block): Block {
  if (block.block === 'login-init') return { ...block, alternatives: [buildSignupInitBlock({ identifiers: [] })] };
  if (block.block === 'signup-init') return { ...block, alternatives: [buildLoginInitBlock({ identifierValue: '', isPhone: false })] };
  return block;
}
