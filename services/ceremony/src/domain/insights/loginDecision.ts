/**
 * The login decision of B4: whether a passkey login makes sense for this user on this client, and
 * whether it will likely be local or cross-device (hybrid, "CDA").
 */
import type { ClientCapabilities } from './clientCapabilities.js';
import { isFromThisEnv, isLikelySyncedHere, isSecurityKey } from './passkeyLocation.js';
import type { CrossDeviceStrategy, LoginInsights, PasskeySummary } from './types.js';

export const LOGIN_TAGS = {
  userNoPasskeys: 'user-no-pks',
  securityKeysOnly: 'user-security-key',
  platformHighConfidence: 'user-platform-pk-high-confidence',
  syncedMediumConfidence: 'user-synced-pk-medium-confidence',
  crossPlatformHighConfidence: 'user-cross-platform-pk-high-confidence',
  loginBlacklisted: 'user-login-blacklisted',
} as const;

export interface LoginDecisionInput {
  capabilities: ClientCapabilities;
  passkeys: PasskeySummary[];
  envKey: string;
  /** The client's OS name (from its user agent), for the synced-passkey rule. */
  osName: string;
  strategy: CrossDeviceStrategy;
  /** The application reported user-login-blacklisted and it has not expired (passkeyEventEffects). */
  loginBlacklisted?: boolean;
}

export interface LoginDecision {
  loginAllow: boolean;
  decision: LoginInsights['decision'];
}

export function decideLogin(input: LoginDecisionInput): LoginDecision {
  const { passkeys } = input;
  // The application's word comes first: it knows why a passkey login must not be offered now.
  if (input.loginBlacklisted) {
    return { loginAllow: false, decision: { tag: LOGIN_TAGS.loginBlacklisted, isCDACandidate: false, experiments: [], preferImmediatelyAvailable: false } };
  }
  if (passkeys.length === 0) {
    return { loginAllow: false, decision: { tag: LOGIN_TAGS.userNoPasskeys, isCDACandidate: false, experiments: [], preferImmediatelyAvailable: false } };
  }

  const fromThisEnv = passkeys.some((p) => isFromThisEnv(p, input.envKey));
  const syncedHere = passkeys.some((p) => isLikelySyncedHere(p, input.osName));
  const onlySecurityKeys = passkeys.every(isSecurityKey);

  let tag: string;
  if (onlySecurityKeys) tag = LOGIN_TAGS.securityKeysOnly;
  else if (fromThisEnv) tag = LOGIN_TAGS.platformHighConfidence;
  else if (syncedHere) tag = LOGIN_TAGS.syncedMediumConfidence;
  else tag = LOGIN_TAGS.crossPlatformHighConfidence;

  // Hybrid is the way in when no passkey is usable here; security keys are plugged in, not scanned.
  const noneLocal = !fromThisEnv && !syncedHere && !onlySecurityKeys;
  let isCDACandidate: boolean;
  if (input.strategy === 'minimize') isCDACandidate = false;
  else if (input.strategy === 'maximize') isCDACandidate = noneLocal;
  else isCDACandidate = noneLocal && input.capabilities.hybrid;

  return {
    loginAllow: true,
    decision: {
      tag,
      isCDACandidate,
      experiments: [],
      // Only a passkey known to be on this client: a wrong guess would hide the cross-device option.
      preferImmediatelyAvailable: fromThisEnv,
    },
  };
}
