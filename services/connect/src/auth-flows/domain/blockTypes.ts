/**
 * The Block response (blockBody). data is a free-form object on the wire, so the builders, one per
 * blockType (build*Block.ts), are the one place its shape per blockType is written down (see the
 * list in docs/api/signup-login-and-sessions.md, "Sign-up and login (frontend API)"); each returns
 * the block exactly as the interface names its fields.
 */
import type { AuthType, BlockType } from '../store/authProcesses.js';

export interface RequestError {
  code: string;
  message: string;
}

export interface Block {
  block: BlockType;
  authType: AuthType;
  data: Record<string, unknown>;
  alternatives: Block[];
  error?: RequestError;
  /** Set when the process went on elsewhere (another tab or device); the page stops following it. */
  continueOnOtherDevice?: { reason: 'email-link-verified' | 'process-already-completed' };
}

/** The socialData of the init blocks: no social login providers are offered. */
export const SOCIAL_DATA = { providers: [], status: 'initial' };
